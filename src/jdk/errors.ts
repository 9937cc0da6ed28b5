/** Java exceptions surfaced by the ports, with Java's class name and message. */

export class JavaException extends Error {
  /** Fully qualified Java class name, e.g. "java.text.ParseException". */
  readonly javaClass: string;
  constructor(javaClass: string, message: string) {
    super(message);
    this.javaClass = javaClass;
    this.name = javaClass.slice(javaClass.lastIndexOf('.') + 1);
  }
  /** What Java's Throwable.toString() prints: "java.text.ParseException: Unparseable date: …". */
  override toString(): string {
    return `${this.javaClass}: ${this.message}`;
  }
}

/** java.text.ParseException: `Unparseable date: "x"` from SimpleDateFormat.parse. */
export class JavaParseException extends JavaException {
  readonly errorOffset: number;
  constructor(message: string, errorOffset: number) {
    super('java.text.ParseException', message);
    this.errorOffset = errorOffset;
  }
}

/** java.lang.IllegalArgumentException, e.g. `Illegal pattern character 'q'`. */
export class JavaIllegalArgumentException extends JavaException {
  constructor(message: string) {
    super('java.lang.IllegalArgumentException', message);
  }
}

/** java.lang.ArithmeticException, e.g. RoundingMode.UNNECESSARY with a value that needs rounding. */
export class JavaArithmeticException extends JavaException {
  constructor(message: string) {
    super('java.lang.ArithmeticException', message);
  }
}

/** java.io.UnsupportedEncodingException: the message is the charset name. */
export class JavaUnsupportedEncodingException extends JavaException {
  constructor(message: string) {
    super('java.io.UnsupportedEncodingException', message);
  }
}

/** java.lang.NumberFormatException (a decimal text that is not a number). */
export class JavaNumberFormatException extends JavaException {
  constructor(message: string) {
    super('java.lang.NumberFormatException', message);
  }
}
