@testable import ClipboardHistory
import Testing

/// Known answers from FIPS 180-4's examples and NIST's test vectors.
@Suite struct SHA256Tests {
    @Test func knownAnswers() {
        #expect(SHA256.hex(SHA256.hash([UInt8]())) == "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855")
        #expect(SHA256.hex(SHA256.hash(Array("abc".utf8))) == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
        #expect(
            SHA256.hex(SHA256.hash(Array("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq".utf8)))
                == "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1")
        #expect(
            SHA256.hex(SHA256.hash([UInt8](repeating: UInt8(ascii: "a"), count: 1_000_000)))
                == "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0")
    }

    /// Feeding in pieces of every size across the 64-byte block and the 56-byte padding edge
    /// gives the same digest as feeding at once.
    @Test func piecewiseEqualsWhole() {
        for length in [0, 1, 55, 56, 57, 63, 64, 65, 119, 120, 128, 1000] {
            let data = (0..<length).map { UInt8(truncatingIfNeeded: $0 &* 13) }
            for piece in [1, 7, 64] {
                var hasher = SHA256()
                var offset = 0
                while offset < length {
                    hasher.update(data[offset..<min(offset + piece, length)])
                    offset += piece
                }
                #expect(hasher.finish() == SHA256.hash(data), "length \(length), pieces of \(piece)")
            }
        }
    }
}
