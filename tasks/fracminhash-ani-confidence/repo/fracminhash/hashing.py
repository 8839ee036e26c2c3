"""Hash functions for k-mers.

``murmur3_x64_128`` is Austin Appleby's public-domain MurmurHash3 (the x64,
128-bit variant), written in pure Python. ``hash_kmer`` turns a k-mer string
into the unsigned integer that Mash-style sketches compare: the first 8 bytes
of the 128-bit digest read as a little-endian unsigned 64-bit integer, or the
first 4 bytes (an unsigned 32-bit integer) when ``bits == 32``.
"""

MASK64 = (1 << 64) - 1
DEFAULT_SEED = 42

_C1 = 0x87C37B91114253D5
_C2 = 0x4CF5AD432745937F


def _fmix64(k):
    k ^= k >> 33
    k = (k * 0xFF51AFD7ED558CCD) & MASK64
    k ^= k >> 33
    k = (k * 0xC4CEB9FE1A85EC53) & MASK64
    return k ^ (k >> 33)


def murmur3_x64_128(data, seed=DEFAULT_SEED):
    """MurmurHash3_x64_128 of ``data`` (bytes) with a 32-bit ``seed``.

    Returns the pair ``(h1, h2)`` of unsigned 64-bit integers; the digest's
    bytes are h1 then h2, each little-endian."""
    data = bytes(data)
    n = len(data)
    nblocks = n // 16
    h1 = h2 = seed & 0xFFFFFFFF
    for i in range(0, 16 * nblocks, 16):
        k1 = (int.from_bytes(data[i : i + 8], "little") * _C1) & MASK64
        k1 = (((k1 << 31) | (k1 >> 33)) * _C2) & MASK64
        h1 ^= k1
        h1 = ((h1 << 27) | (h1 >> 37)) & MASK64
        h1 = ((h1 + h2) * 5 + 0x52DCE729) & MASK64
        k2 = (int.from_bytes(data[i + 8 : i + 16], "little") * _C2) & MASK64
        k2 = (((k2 << 33) | (k2 >> 31)) * _C1) & MASK64
        h2 ^= k2
        h2 = ((h2 << 31) | (h2 >> 33)) & MASK64
        h2 = ((h2 + h1) * 5 + 0x38495AB5) & MASK64
    tail = data[16 * nblocks :]
    if len(tail) > 8:
        k2 = (int.from_bytes(tail[8:], "little") * _C2) & MASK64
        h2 ^= (((k2 << 33) | (k2 >> 31)) * _C1) & MASK64
    if tail:
        k1 = (int.from_bytes(tail[:8], "little") * _C1) & MASK64
        h1 ^= (((k1 << 31) | (k1 >> 33)) * _C2) & MASK64
    h1 ^= n
    h2 ^= n
    h1 = (h1 + h2) & MASK64
    h2 = (h2 + h1) & MASK64
    h1 = _fmix64(h1)
    h2 = _fmix64(h2)
    h1 = (h1 + h2) & MASK64
    return h1, (h2 + h1) & MASK64


def hash_kmer(kmer, seed=DEFAULT_SEED, bits=64):
    """Hash of one k-mer (a str of ASCII letters) as an unsigned integer.

    ``bits`` is 64 (the low 64 bits of the digest, i.e. h1) or 32 (the low
    32 bits of h1). Raises ValueError for any other width."""
    if bits not in (32, 64):
        raise ValueError(f"bits must be 32 or 64, got {bits!r}")
    h1, _ = murmur3_x64_128(kmer.encode("ascii"), seed)
    return h1 if bits == 64 else h1 & 0xFFFFFFFF
