/**
 * Java 17 standard-library semantics the platform inherits from the JVM: SimpleDateFormat, DecimalFormat, locale date/number styles,
 * Double.toString, TimeZone resolution, URLEncoder/URLDecoder, Math.round.
 * See docs/jdk.md for what is ported, the bundled locales and the known differences.
 */
export { SimpleDateFormat, type SimpleDateFormatOptions } from './date/simpleDateFormat.js';
export { dateStylePattern, type DateStyle, type DateStyleKind } from './date/dateStyles.js';
export { dateOffset, addDays, type DateOffsetOptions } from './date/dateOffset.js';
export { javaTimeZone } from './date/timeZone.js';
export { DecimalFormat, type DecimalFormatOptions, type RoundingMode } from './number/decimalFormat.js';
export { numberFormatFor, type NumberFormatKind } from './number/numberFormats.js';
export { doubleToString } from './number/floatingDecimal.js';
export { javaMathRound, javaMathRoundLong } from './number/mathRound.js';
export { urlEncode, urlDecode } from './url.js';
export {
  JavaException,
  JavaParseException,
  JavaIllegalArgumentException,
  JavaArithmeticException,
  JavaUnsupportedEncodingException,
  JavaNumberFormatException,
} from './errors.js';
