import CPNG
import LinuxIO
import Raster

#if canImport(Glibc)
import Glibc
#endif

/// Why a PNG could not be read or written; the message names the file.
public struct PNGError: Error, CustomStringConvertible, Equatable {
    public let path: String
    public let reason: String
    public var description: String { "\(path): \(reason)" }
}

/// PNG files through libpng's simplified API (no setjmp reaches Swift).
/// Writes go to a temporary name and are renamed into place, so a failed or interrupted write never
/// leaves a partial file where a user expects a picture.
public enum PNG {
    /// Writes `buffer` as 8-bit RGB (the alpha byte of XRGB frames carries no meaning on a display),
    /// with `text` as tEXt chunks (keyword, value; Latin-1 printable, as the format requires).
    public static func write(_ buffer: PixelBuffer, to path: String, text: [(keyword: String, value: String)] = []) throws(PNGError) {
        let encoded = try withText(encode(buffer, name: path), text)
        do { try AtomicFile.write(encoded, to: path) } catch {
            throw PNGError(path: path, reason: "cannot write PNG: \(error.message)")
        }
    }

    /// `buffer` as the bytes of an 8-bit RGB PNG (a screenshot sent down a socket's descriptor).
    public static func encode(_ buffer: PixelBuffer, name: String = "picture") throws(PNGError) -> [UInt8] {
        let path = name
        var image = png_image()
        image.version = UInt32(PNG_IMAGE_VERSION)
        image.width = UInt32(buffer.width)
        image.height = UInt32(buffer.height)
        // BGRA in memory is exactly libpng's BGRA format; dropping alpha is done by converting to BGR rows.
        image.format = UInt32(PNG_FORMAT_BGR)
        var rows = [UInt8](repeating: 0, count: buffer.width * buffer.height * 3)
        let w = buffer.width, stride = buffer.stride
        buffer.pixels.withUnsafeBufferPointer { src in
            rows.withUnsafeMutableBufferPointer { dst in
                for y in 0..<buffer.height {
                    for x in 0..<w {
                        let p = src[y * stride + x]
                        let o = (y * w + x) * 3
                        dst[o] = UInt8(truncatingIfNeeded: p)
                        dst[o + 1] = UInt8(truncatingIfNeeded: p >> 8)
                        dst[o + 2] = UInt8(truncatingIfNeeded: p >> 16)
                    }
                }
            }
        }
        // Encoded in memory, then written through the one atomic writer: a reader (a preview
        // watcher, a test) sees the old picture or the new one, never half of either.
        var size = 0
        var encoded: [UInt8] = []
        let ok = rows.withUnsafeBytes { raw -> Int32 in
            guard png_image_write_to_memory(&image, nil, &size, 0, raw.baseAddress, Int32(w * 3), nil) != 0 else { return 0 }
            encoded = [UInt8](repeating: 0, count: size)
            return encoded.withUnsafeMutableBytes { out in
                png_image_write_to_memory(&image, out.baseAddress, &size, 0, raw.baseAddress, Int32(w * 3), nil)
            }
        }
        if ok == 0 {
            let message = messageOf(&image)
            png_image_free(&image)
            throw PNGError(path: path, reason: "cannot write PNG: \(message)")
        }
        png_image_free(&image)
        return Array(encoded.prefix(size))
    }

    /// `png` with a tEXt chunk for each pair after its header. libpng's simplified API writes none,
    /// and the chunk is self-contained (its length, type, bytes and CRC), so it goes in by hand. A
    /// pair the format cannot hold (a keyword of 1 to 79 printable characters, a value without NUL,
    /// both ASCII here) is left out rather than written wrong.
    static func withText(_ png: [UInt8], _ text: [(keyword: String, value: String)]) -> [UInt8] {
        // The signature (8 bytes) and IHDR (4 length, 4 type, 13 data, 4 CRC).
        let afterHeader = 8 + 25
        guard !text.isEmpty, png.count > afterHeader else { return png }
        var chunks: [UInt8] = []
        for (keyword, value) in text {
            let k = Array(keyword.utf8), v = Array(value.utf8)
            guard (1...79).contains(k.count), k.allSatisfy({ $0 >= 0x20 && $0 < 0x7F }),
                  k.first != 0x20, k.last != 0x20, v.allSatisfy({ $0 >= 0x20 && $0 < 0x7F }) else { continue }
            let body = Array("tEXt".utf8) + k + [0] + v
            let length = UInt32(body.count - 4)
            chunks += withUnsafeBytes(of: length.bigEndian, Array.init) + body
            chunks += withUnsafeBytes(of: crc32(body).bigEndian, Array.init)
        }
        return Array(png[..<afterHeader]) + chunks + Array(png[afterHeader...])
    }

    /// The CRC-32 PNG chunks carry (ISO 3309, reflected, polynomial 0xEDB88320).
    static func crc32(_ bytes: [UInt8]) -> UInt32 {
        var c: UInt32 = 0xFFFF_FFFF
        for b in bytes {
            c = crcTable[Int((c ^ UInt32(b)) & 0xFF)] ^ (c >> 8)
        }
        return c ^ 0xFFFF_FFFF
    }

    private static let crcTable: [UInt32] = (0..<256).map { n -> UInt32 in
        var c = UInt32(n)
        for _ in 0..<8 { c = c & 1 != 0 ? 0xEDB8_8320 ^ (c >> 1) : c >> 1 }
        return c
    }

    /// Reads any PNG libpng understands into an opaque-or-premultiplied pixel buffer.
    public static func read(_ path: String) throws(PNGError) -> PixelBuffer {
        // Through LinuxIO's reader (regular files only, bounded), then decoded from memory.
        let file: [UInt8]
        do { file = try RegularFile.read(path, limit: 256 << 20) } catch {
            throw PNGError(path: path, reason: "cannot read PNG: \(error)")
        }
        return try file.withUnsafeBytes { raw in
            Result { () throws(PNGError) in try decode(raw, path: path) }
        }.get()
    }

    private static func decode(_ file: UnsafeRawBufferPointer, path: String) throws(PNGError) -> PixelBuffer {
        var image = png_image()
        image.version = UInt32(PNG_IMAGE_VERSION)
        guard png_image_begin_read_from_memory(&image, file.baseAddress, file.count) != 0 else {
            let message = messageOf(&image)
            png_image_free(&image)
            throw PNGError(path: path, reason: "cannot read PNG: \(message)")
        }
        // Linear premultiplied formats would change the sRGB values; ask for straight BGRA and premultiply here.
        image.format = UInt32(PNG_FORMAT_BGRA)
        let width = Int(image.width), height = Int(image.height)
        guard width > 0, height > 0, width <= 16384, height <= 16384 else {
            png_image_free(&image)
            throw PNGError(path: path, reason: "unsupported PNG size \(width)x\(height)")
        }
        var bytes = [UInt8](repeating: 0, count: width * height * 4)
        let ok = bytes.withUnsafeMutableBytes { raw in
            png_image_finish_read(&image, nil, raw.baseAddress, Int32(width * 4), nil)
        }
        guard ok != 0 else {
            let message = messageOf(&image)
            png_image_free(&image)
            throw PNGError(path: path, reason: "cannot decode PNG: \(message)")
        }
        var buffer = PixelBuffer(width: width, height: height)
        bytes.withUnsafeBufferPointer { b in
            buffer.pixels.withUnsafeMutableBufferPointer { p in
                for i in 0..<(width * height) {
                    let color = Color(red: b[i * 4 + 2], green: b[i * 4 + 1], blue: b[i * 4], alpha: b[i * 4 + 3])
                    p[i] = color.premultiplied
                }
            }
        }
        return buffer
    }

    private static func messageOf(_ image: inout png_image) -> String {
        withUnsafeBytes(of: &image.message) { raw in
            let chars = raw.bindMemory(to: CChar.self)
            let end = chars.firstIndex(of: 0) ?? chars.count
            return String(decoding: raw.prefix(end), as: UTF8.self)
        }
    }
}
