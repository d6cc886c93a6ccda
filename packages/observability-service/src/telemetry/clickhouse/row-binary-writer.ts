/** Bytes a buffer starts with; it doubles when full. */
const initialBytes = 1 << 20;
/** UTF-16 code units that always fit a one-byte length (each encodes to at most 3 UTF-8 bytes). */
const shortStringUnits = 42;
const twoTo32 = 2 ** 32;

/**
 * Builds one ClickHouse `RowBinary` body: fixed-width little-endian numbers, strings as a LEB128
 * length and their UTF-8 bytes, `Nullable` as a null byte before the value. The server parses
 * it without reading text (no number or escape parsing), and doubles arrive exactly as sent.
 * Supported by every ClickHouse release, 18.16 included.
 */
export class RowBinaryWriter {
  #buffer = Buffer.allocUnsafe(initialBytes);
  #offset = 0;

  #reserve(bytes: number): void {
    if (this.#offset + bytes <= this.#buffer.length) return;
    let size = this.#buffer.length * 2;
    while (size < this.#offset + bytes) size *= 2;
    const grown = Buffer.allocUnsafe(size);
    this.#buffer.copy(grown, 0, 0, this.#offset);
    this.#buffer = grown;
  }

  uint8(value: number): void {
    this.#reserve(1);
    this.#buffer[this.#offset++] = value;
  }

  uint16(value: number): void {
    this.#reserve(2);
    this.#offset = this.#buffer.writeUInt16LE(value, this.#offset);
  }

  uint32(value: number): void {
    this.#reserve(4);
    this.#offset = this.#buffer.writeUInt32LE(value, this.#offset);
  }

  /** A UInt64 from a safe integer (epoch milliseconds). */
  uint64(value: number): void {
    this.#reserve(8);
    this.#buffer.writeUInt32LE(value % twoTo32, this.#offset);
    this.#buffer.writeUInt32LE(Math.floor(value / twoTo32), this.#offset + 4);
    this.#offset += 8;
  }

  float64(value: number): void {
    this.#reserve(8);
    this.#offset = this.#buffer.writeDoubleLE(value, this.#offset);
  }

  /** A `Date`: days since 1970-01-01 (UTC). */
  date(epochDays: number): void {
    this.uint16(epochDays);
  }

  string(value: string): void {
    if (value.length <= shortStringUnits) {
      // At most 126 bytes: write after a one-byte length, then fill the length in.
      this.#reserve(1 + value.length * 3);
      const written = this.#buffer.write(value, this.#offset + 1, 'utf8');
      this.#buffer[this.#offset] = written;
      this.#offset += 1 + written;
      return;
    }
    const bytes = Buffer.byteLength(value, 'utf8');
    this.#reserve(10 + bytes);
    let length = bytes;
    while (length >= 0x80) {
      this.#buffer[this.#offset++] = (length & 0x7f) | 0x80;
      length = Math.floor(length / 0x80);
    }
    this.#buffer[this.#offset++] = length;
    this.#offset += this.#buffer.write(value, this.#offset, bytes, 'utf8');
  }

  /** `Nullable(String)`. */
  nullableString(value: string | null): void {
    this.uint8(value === null ? 1 : 0);
    if (value !== null) this.string(value);
  }

  /** `Nullable(UInt16)`. */
  nullableUint16(value: number | null): void {
    this.uint8(value === null ? 1 : 0);
    if (value !== null) this.uint16(value);
  }

  /** The bytes written so far (a view, not a copy). */
  bytes(): Buffer {
    return this.#buffer.subarray(0, this.#offset);
  }
}
