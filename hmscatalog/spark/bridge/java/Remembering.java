package io.hmscatalog.spark;

import java.lang.reflect.InvocationHandler;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Proxy;
import java.util.Arrays;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;

/**
 * A Python table or scan as Spark sees it: a JVM object with the Python object's interfaces
 * that answers, without a call into Python, what Spark asks of it again and again while it
 * plans a query ({@code name()} about twenty times, a scan's {@code description()} and
 * {@code columnarSupportMode()} several times).
 *
 * <p>Each no-argument method named as remembered is asked of the Python object once; its answer
 * is kept until a method named as changing the object is called, which forgets every kept
 * answer. {@code equals} and {@code hashCode} are identity, as the Python objects' own are.
 * Every other call goes to the Python object, and its exceptions reach the caller unchanged.
 */
public final class Remembering implements InvocationHandler {
  private static final Object NULL = new Object();

  private final Object delegate;
  private final Set<String> remembered;
  private final Set<String> changers;
  private final Set<String> itself;
  private final Map<String, Object> answers = new HashMap<>();  // its lock guards the two below
  private long changes;  // changes begun or ended so far
  private int changing;  // changes under way

  private Remembering(Object delegate, Set<String> remembered, Set<String> changing,
      Set<String> itself) {
    this.delegate = delegate;
    this.remembered = remembered;
    this.changers = changing;
    this.itself = itself;
  }

  /**
   * {@code delegate} (a py4j proxy) behind an object with its interfaces that remembers the
   * answers of the comma-separated no-argument methods {@code remembered} until one of the
   * methods {@code changing} is called, and answers the no-argument methods {@code itself}
   * (a scan's {@code toBatch()}, say, when the Python scan returns itself) with itself.
   */
  public static Object wrap(Object delegate, String remembered, String changing,
      String itself) {
    Class<?> type = delegate.getClass();
    return Proxy.newProxyInstance(type.getClassLoader(), type.getInterfaces(),
        new Remembering(delegate, names(remembered), names(changing), names(itself)));
  }

  private static Set<String> names(String commaSeparated) {
    return commaSeparated.isEmpty() ? Set.of()
        : new HashSet<>(Arrays.asList(commaSeparated.split(",")));
  }

  @Override
  public Object invoke(Object proxy, Method method, Object[] args) throws Throwable {
    String name = method.getName();
    int arity = method.getParameterCount();
    if (arity == 1 && name.equals("equals") && method.getParameterTypes()[0] == Object.class) {
      return proxy == args[0];
    }
    if (arity == 0 && name.equals("hashCode")) {
      return System.identityHashCode(proxy);
    }
    if (arity == 0 && itself.contains(name)) {
      return proxy;
    }
    if (arity == 0 && remembered.contains(name)) {
      long asked;
      synchronized (answers) {
        Object kept = answers.get(name);
        if (kept != null) {
          return kept == NULL ? null : kept;
        }
        asked = changes;
      }
      Object answer = forward(method, args);
      synchronized (answers) {
        if (changes == asked && changing == 0) {  // no change began or ended meanwhile
          answers.put(name, answer == null ? NULL : answer);
        }
      }
      return answer;
    }
    if (changers.contains(name)) {
      synchronized (answers) {
        answers.clear();
        changes++;
        changing++;
      }
      try {
        return forward(method, args);
      } finally {
        synchronized (answers) {
          answers.clear();
          changes++;
          changing--;
        }
      }
    }
    return forward(method, args);
  }

  private Object forward(Method method, Object[] args) throws Throwable {
    try {
      return method.invoke(delegate, args);
    } catch (InvocationTargetException e) {
      throw e.getCause();
    }
  }
}
