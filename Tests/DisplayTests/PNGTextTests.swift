@testable import Display
import Raster
import TestSupport
import Testing

/// The preview names its frame's moment in a tEXt chunk written by hand (libpng's simplified API
/// writes none): the file must stay a PNG every reader takes, the chunk one they can read.
@Suite("PNG text")
struct PNGTextTests {
    @Test("CRC-32 as PNG computes it (the check value of ISO 3309's CRC: \"123456789\")")
    func crc() {
        #expect(PNG.crc32(Array("123456789".utf8)) == 0xCBF4_3926)
        #expect(PNG.crc32(Array("IEND".utf8)) == 0xAE42_6082)
    }

    @Test("a PNG with text reads back to the same pixels, the chunk after the header with its CRC")
    func roundTrip() throws {
        var picture = PixelBuffer(width: 3, height: 2, fill: 0xFF10_2030)
        picture[1, 1] = 0xFFFF_8000
        let path = TestPaths.temporary("png-text.png")
        try PNG.write(picture, to: path, text: [("tickerboard-time", "1693.4311341136668"), ("bad\u{0}key", "x"), ("", "y")])
        #expect(try PNG.read(path).pixels == picture.pixels)
        let bytes = try PNG.encode(picture)
        let texted = PNG.withText(bytes, [("tickerboard-time", "12.5")])
        // Signature and IHDR, then length 21, "tEXt", the keyword, NUL, the value, the CRC of type and data.
        let chunk = Array(texted[33..<(33 + 12 + 21)])
        #expect(Array(chunk[0..<4]) == [0, 0, 0, 21])
        #expect(String(decoding: chunk[4..<8], as: UTF8.self) == "tEXt")
        #expect(String(decoding: chunk[8..<29], as: UTF8.self) == "tickerboard-time\u{0}12.5")
        let crc = chunk[29...].reduce(UInt32(0)) { $0 << 8 | UInt32($1) }
        #expect(crc == PNG.crc32(Array(chunk[4..<29])))
        #expect(Array(texted[0..<33]) == Array(bytes[0..<33]) && Array(texted[(33 + 33)...]) == Array(bytes[33...]))
        // Pairs the format cannot hold are left out: the two bad ones add nothing.
        #expect(PNG.withText(bytes, [("bad\u{0}key", "x"), ("", "y")]) == bytes)
    }
}
