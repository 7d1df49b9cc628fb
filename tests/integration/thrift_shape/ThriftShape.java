import java.util.Map;
import org.apache.thrift.TBase;
import org.apache.thrift.TFieldIdEnum;
import org.apache.thrift.meta_data.FieldMetaData;
import org.apache.thrift.meta_data.StructMetaData;
import org.apache.thrift.protocol.TType;

/**
 * Prints the Thrift shape of generated classes, one line per field:
 * {@code <class> <id> <name> <wire type> [<struct class>]}, or {@code <class> MISSING} when the class is absent.
 * Class names (binary names, e.g. {@code ...ThriftHiveMetastore$get_table_args}) come as
 * arguments. Enum fields are reported with their wire type, I32. For an enum class, each
 * constant is a line {@code <class> <value> <name> 8}.
 */
public class ThriftShape {
    public static void main(String[] args) {
        StringBuilder out = new StringBuilder();
        for (String name : args) {
            Class<?> cls;
            try {
                cls = Class.forName(name, false, ThriftShape.class.getClassLoader());
            } catch (ClassNotFoundException e) {
                out.append(name).append(" MISSING\n");
                continue;
            }
            if (cls.isEnum()) {
                out.append(name).append(" ENUM\n");
                for (Object constant : cls.getEnumConstants()) {
                    out.append(name).append(' ').append(((org.apache.thrift.TEnum) constant).getValue())
                       .append(' ').append(((Enum<?>) constant).name()).append(" 8\n");
                }
                continue;
            }
            @SuppressWarnings("unchecked")
            Map<? extends TFieldIdEnum, FieldMetaData> meta =
                FieldMetaData.getStructMetaDataMap((Class<? extends TBase>) cls);
            out.append(name).append(" STRUCT\n");
            for (Map.Entry<? extends TFieldIdEnum, FieldMetaData> e : meta.entrySet()) {
                byte type = e.getValue().valueMetaData.type;
                if (type == TType.ENUM) {
                    type = TType.I32;
                }
                out.append(name).append(' ').append(e.getKey().getThriftFieldId()).append(' ')
                   .append(e.getKey().getFieldName()).append(' ').append(type);
                if (e.getValue().valueMetaData instanceof StructMetaData) {
                    out.append(' ').append(
                        ((StructMetaData) e.getValue().valueMetaData).structClass.getSimpleName());
                }
                out.append('\n');
            }
        }
        System.out.print(out);
    }
}
