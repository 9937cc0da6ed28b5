/** The Bubble Babble binary data encoding (Antti Huima, 2000): pronounceable, with a checksum. */
const VOWELS = 'aeiouy';
const CONSONANTS = 'bcdfghklmnprstvzx';

export function bubbleBabble(data: Uint8Array): string {
  let out = 'x';
  let seed = 1;
  const rounds = Math.floor(data.length / 2) + 1;
  for (let i = 0; i < rounds; i++) {
    if (i + 1 < rounds || data.length % 2 !== 0) {
      const b1 = data[2 * i];
      out +=
        VOWELS[(((b1 >> 6) & 3) + seed) % 6] +
        CONSONANTS[(b1 >> 2) & 15] +
        VOWELS[((b1 & 3) + Math.floor(seed / 6)) % 6];
      if (i + 1 < rounds) {
        const b2 = data[2 * i + 1];
        out += CONSONANTS[(b2 >> 4) & 15] + '-' + CONSONANTS[b2 & 15];
        seed = (seed * 5 + b1 * 7 + b2) % 36;
      }
    } else {
      out += VOWELS[seed % 6] + CONSONANTS[16] + VOWELS[Math.floor(seed / 6)];
    }
  }
  return out + 'x';
}
