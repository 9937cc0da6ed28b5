// Cost of the Java-semantics ports (src/jdk) beside the nearest built-in Node operation measured in
// the same run: DecimalFormat against Intl.NumberFormat, SimpleDateFormat against
// Intl.DateTimeFormat, Double.toString against Number.prototype.toString. The ports do more (exact
// Java results), so the ratios say what exactness costs; absolute µs/op are printed too.
import { performance } from 'node:perf_hooks';
import { DecimalFormat, SimpleDateFormat, doubleToString } from '../src/jdk/index.js';

function timePerOp(run: (i: number) => unknown, n: number): number {
  for (let i = 0; i < Math.min(n, 20000); i++) run(i); // warm-up
  let sink = 0;
  const start = performance.now();
  for (let i = 0; i < n; i++) sink += String(run(i)).length;
  const us = ((performance.now() - start) * 1000) / n;
  if (sink < 0) console.log(sink);
  return us;
}

const N = 200_000;
const doubles = Array.from({ length: 4096 }, (_, i) => (i * 7919.123) / 37 - 300);
const decimals = doubles.map((x) => x.toFixed(4));
const epochs = Array.from({ length: 4096 }, (_, i) => 1.6e12 + i * 3_600_123 * 7);

const df = new DecimalFormat('#,##0.###');
const nf = new Intl.NumberFormat('en-US', { maximumFractionDigits: 3 });
const sdf = new SimpleDateFormat("yyyy-MM-dd'T'HH:mm:ss.SSSZ", { timeZone: 'Europe/Paris' });
const dtf = new Intl.DateTimeFormat('en-US', {
  timeZone: 'Europe/Paris',
  year: 'numeric',
  month: '2-digit',
  day: '2-digit',
  hour: '2-digit',
  minute: '2-digit',
  second: '2-digit',
  fractionalSecondDigits: 3,
  timeZoneName: 'longOffset',
});
const texts = epochs.map((e) => sdf.format(e));

const rows: [string, number, string, number][] = [
  [
    'DecimalFormat.format(double)',
    timePerOp((i) => df.format(doubles[i & 4095]!), N),
    'Intl.NumberFormat',
    timePerOp((i) => nf.format(doubles[i & 4095]!), N),
  ],
  [
    'DecimalFormat.format(decimal text)',
    timePerOp((i) => df.format(decimals[i & 4095]!), N),
    'Intl.NumberFormat',
    timePerOp((i) => nf.format(doubles[i & 4095]!), N),
  ],
  [
    'doubleToString',
    timePerOp((i) => doubleToString(doubles[i & 4095]!), N),
    'Number#toString',
    timePerOp((i) => String(doubles[i & 4095]!), N),
  ],
  [
    'SimpleDateFormat.format',
    timePerOp((i) => sdf.format(epochs[i & 4095]!), N),
    'Intl.DateTimeFormat',
    timePerOp((i) => dtf.format(epochs[i & 4095]!), N),
  ],
  [
    'SimpleDateFormat.parse',
    timePerOp((i) => sdf.parse(texts[i & 4095]!), N / 4),
    'Date.parse (ISO)',
    timePerOp((i) => Date.parse(new Date(epochs[i & 4095]!).toISOString()), N / 4),
  ],
  [
    'new SimpleDateFormat + format',
    timePerOp(
      (i) => new SimpleDateFormat('dd/MM/yyyy HH:mm', { timeZone: 'Europe/Paris' }).format(epochs[i & 4095]!),
      N / 10,
    ),
    'new Intl.DateTimeFormat + format',
    timePerOp(
      (i) => new Intl.DateTimeFormat('en-GB', { timeZone: 'Europe/Paris' }).format(epochs[i & 4095]!),
      N / 10,
    ),
  ],
];

for (const [name, us, refName, refUs] of rows) {
  console.log(
    `${name.padEnd(36)} ${us.toFixed(2).padStart(7)} µs/op   ${refName.padEnd(34)} ${refUs.toFixed(2).padStart(7)} µs/op   ratio ${(us / refUs).toFixed(2)}`,
  );
}
