package io.hmscatalog.metastore;

import java.io.FileDescriptor;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.SocketAddress;
import java.net.SocketException;
import java.net.SocketImpl;
import java.net.SocketOption;
import java.util.Arrays;
import java.util.Set;

/**
 * Runs a server's main class with every server socket that it binds to the wildcard address
 * bound to one address instead: {@code BoundServer <address> <main class> [arguments...]}.
 * Each bind is logged on standard error ({@code hmscatalog: server socket bound to <address>
 * port <port>}), so that whoever started the server knows the port that answers is its own.
 *
 * <p>hmscatalog starts its embedded metastores through it, so that they listen on 127.0.0.1
 * unless told otherwise: Hive 2.3 and 3.1 have no setting for the address of their Thrift
 * port and listen on every interface. The JVM needs {@code --add-exports
 * java.base/sun.net=ALL-UNNAMED --add-opens java.base/java.net=ALL-UNNAMED}.
 */
public final class BoundServer {
  private BoundServer() {}

  public static void main(String[] args) throws Throwable {
    InetAddress address = InetAddress.getByName(args[0]);
    // Also for the wildcard address, where it binds as the JDK would: each bind is logged.
    new Bound(address).close();  // fails here, not at the server's first socket, on a JDK
                                 // whose sockets cannot be wrapped
    ServerSocket.setSocketFactory(() -> new Bound(address));
    Method main = Class.forName(args[1]).getMethod("main", String[].class);
    try {
      main.invoke(null, (Object) Arrays.copyOfRange(args, 2, args.length));
    } catch (InvocationTargetException e) {
      throw e.getCause();
    }
  }

  /**
   * A server socket that binds {@code address} where it is asked for the wildcard address and
   * otherwise does what the JDK's own does: it forwards each call to one. It is a platform
   * socket to {@link ServerSocket}, which then accepts connections with the JDK's sockets.
   */
  static final class Bound extends SocketImpl implements sun.net.PlatformSocketImpl {
    private static final Class<?>[] NONE = new Class<?>[0];
    private static final String BOUND = "hmscatalog: server socket bound to ";
    private final InetAddress address;
    private final SocketImpl platform;

    Bound(InetAddress address) {
      this.address = address;
      this.platform = (SocketImpl) invoke(null, "createPlatformSocketImpl",
          new Class<?>[] {boolean.class}, true);
    }

    /** Calls SocketImpl's (non-public) method {@code name} on {@code target}. */
    private static Object invoke(SocketImpl target, String name, Class<?>[] types,
                                 Object... args) {
      Method method;
      try {
        method = SocketImpl.class.getDeclaredMethod(name, types);
        method.setAccessible(true);
      } catch (ReflectiveOperationException | RuntimeException e) {
        throw new IllegalStateException("cannot bind server sockets to one address on this JDK "
            + "(SocketImpl." + name + "): " + e, e);
      }
      try {
        return method.invoke(target, args);
      } catch (InvocationTargetException e) {
        throw new Forwarded(e.getCause());
      } catch (IllegalAccessException e) {
        throw new IllegalStateException(e);
      }
    }

    private Object forward(String name, Class<?>[] types, Object... args) throws IOException {
      try {
        return invoke(platform, name, types, args);
      } catch (Forwarded e) {
        if (e.getCause() instanceof IOException io) {
          throw io;
        }
        throw e;
      } finally {
        // ServerSocket reads these fields of its SocketImpl
        fd = (FileDescriptor) invoke(platform, "getFileDescriptor", NONE);
        super.address = (InetAddress) invoke(platform, "getInetAddress", NONE);
        port = (Integer) invoke(platform, "getPort", NONE);
        localport = (Integer) invoke(platform, "getLocalPort", NONE);
      }
    }

    @Override
    protected void bind(InetAddress host, int p) throws IOException {
      InetAddress target = host == null || host.isAnyLocalAddress() ? address : host;
      forward("bind", new Class<?>[] {InetAddress.class, int.class}, target, p);
      // Read by hmscatalog.metastore.server: the port that answers is this process's own.
      System.err.println(BOUND + target.getHostAddress() + " port " + localport);
    }

    @Override
    protected void create(boolean stream) throws IOException {
      forward("create", new Class<?>[] {boolean.class}, stream);
    }

    @Override
    protected void connect(String host, int p) throws IOException {
      forward("connect", new Class<?>[] {String.class, int.class}, host, p);
    }

    @Override
    protected void connect(InetAddress host, int p) throws IOException {
      forward("connect", new Class<?>[] {InetAddress.class, int.class}, host, p);
    }

    @Override
    protected void connect(SocketAddress to, int timeout) throws IOException {
      forward("connect", new Class<?>[] {SocketAddress.class, int.class}, to, timeout);
    }

    @Override
    protected void listen(int backlog) throws IOException {
      forward("listen", new Class<?>[] {int.class}, backlog);
    }

    @Override
    protected void accept(SocketImpl s) throws IOException {
      forward("accept", new Class<?>[] {SocketImpl.class}, s);
    }

    @Override
    protected InputStream getInputStream() throws IOException {
      return (InputStream) forward("getInputStream", NONE);
    }

    @Override
    protected OutputStream getOutputStream() throws IOException {
      return (OutputStream) forward("getOutputStream", NONE);
    }

    @Override
    protected int available() throws IOException {
      return (Integer) forward("available", NONE);
    }

    @Override
    protected void close() throws IOException {
      forward("close", NONE);
    }

    @Override
    protected void sendUrgentData(int data) throws IOException {
      forward("sendUrgentData", new Class<?>[] {int.class}, data);
    }

    @Override
    protected <T> void setOption(SocketOption<T> name, T value) throws IOException {
      forward("setOption", new Class<?>[] {SocketOption.class, Object.class}, name, value);
    }

    @Override
    @SuppressWarnings("unchecked")
    protected <T> T getOption(SocketOption<T> name) throws IOException {
      return (T) forward("getOption", new Class<?>[] {SocketOption.class}, name);
    }

    @Override
    @SuppressWarnings("unchecked")
    protected Set<SocketOption<?>> supportedOptions() {
      return (Set<SocketOption<?>>) invoke(platform, "supportedOptions", NONE);
    }

    @Override
    public void setOption(int id, Object value) throws SocketException {
      platform.setOption(id, value);
    }

    @Override
    public Object getOption(int id) throws SocketException {
      return platform.getOption(id);
    }
  }

  /** What a forwarded call threw, carried through reflection. */
  private static final class Forwarded extends RuntimeException {
    private static final long serialVersionUID = 1L;

    Forwarded(Throwable cause) {
      super(cause);
    }
  }
}
