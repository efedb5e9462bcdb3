import CRaster
import Raster

/// What a display is given to show: one pixel buffer, or a few that tile the frame side by side
/// (a scene and a ticker tape's band, each drawn in a canvas of its own), read in place. The band
/// beside a chart was once put together with the chart in a screen-sized canvas of its own first:
/// a second copy of the chart's redrawn pixels every frame and a second picture in memory (8 MB
/// at 1080p, 33 MB at 4K).
///
/// Hold one only while presenting: a part is a second owner of its canvas's pixels, and the next
/// drawing into that canvas would copy them whole.
public struct Picture {
    /// A buffer and where its corner sits in the frame.
    public struct Part {
        public let pixels: PixelBuffer
        public let x: Int
        public let y: Int
        public init(_ pixels: PixelBuffer, x: Int = 0, y: Int = 0) {
            self.pixels = pixels
            self.x = x
            self.y = y
        }
        /// The part's rectangle in the frame.
        public var rect: IntRect { IntRect(x0: x, y0: y, x1: x + pixels.width, y1: y + pixels.height) }
    }

    public let width: Int
    public let height: Int
    /// Disjoint rectangles covering the frame; where two overlap, the later one is shown.
    public let parts: [Part]

    public init(_ buffer: PixelBuffer) {
        self.init(width: buffer.width, height: buffer.height, parts: [Part(buffer)])
    }

    public init(width: Int, height: Int, parts: [Part]) {
        self.width = max(1, width)
        self.height = max(1, height)
        self.parts = parts
    }

    public var bounds: IntRect { IntRect(x0: 0, y0: 0, x1: width, y1: height) }

    /// The frame as one buffer (a screenshot, a test): made on request, never per frame.
    public func flattened() -> PixelBuffer {
        if parts.count == 1, let only = parts.first, only.x == 0, only.y == 0, only.pixels.width == width,
           only.pixels.height == height {
            return only.pixels
        }
        var out = PixelBuffer(width: width, height: height)
        let pitch = out.stride * 4
        out.pixels.withUnsafeMutableBytes { _ = copy(.full(bounds), to: $0.baseAddress!, pitch: pitch) }
        return out
    }

    /// Copies the rectangles `region` of the frame to `destination` (rows `pitch` bytes apart,
    /// the picture's corner at (`originX`, `originY`)), placed by `placement`, each part's pixels
    /// read where they are; where `region` is the whole frame, the strips a shift uncovers are
    /// painted too. Returns the bytes written. Writes only, with streaming stores (scanout memory
    /// is write-combined: reading it back is very slow, and nobody reads it in cache).
    @discardableResult
    public func copy(_ region: DamageRegion, placement: CopyPlacement = .identity, to destination: UnsafeMutableRawPointer,
                     pitch: Int, originX: Int = 0, originY: Int = 0) -> Int {
        precondition(pitch % 4 == 0, "scanout pitch is whole pixels")
        // (w, h): the picture the frame sits in, before the turn; (dx, dy): the frame's corner in it.
        let (w, h) = placement.pictureSize(width: width, height: height)
        let dx = placement.marginX + placement.dx, dy = placement.marginY + placement.dy, turns = placement.quarterTurns
        let picture = IntRect(x0: 0, y0: 0, x1: w, y1: h)
        let ds = pitch / 4
        let dst = (destination + originY * pitch + originX * 4).assumingMemoryBound(to: UInt32.self)
        var pixelsWritten = 0
        for part in parts {
            let area = part.rect.intersection(bounds)
            guard !area.isEmpty else { continue }
            // The picture's (X, Y) is the part's own (X - sx, Y - sy).
            let sx = dx + part.x, sy = dy + part.y, ss = part.pixels.stride
            part.pixels.pixels.withUnsafeBufferPointer { src in
                let s = src.baseAddress!
                for unclipped in region.rects {
                    let r = unclipped.intersection(area)
                    let moved = IntRect(x0: r.x0 + dx, y0: r.y0 + dy, x1: r.x1 + dx, y1: r.y1 + dy).intersection(picture)
                    guard !r.isEmpty, !moved.isEmpty else { continue }
                    pixelsWritten += moved.width * moved.height
                    if turns == 0 {
                        for y in moved.y0..<moved.y1 {
                            tb_copy_streaming(dst + y * ds + moved.x0, s + (y - sy) * ss + (moved.x0 - sx), moved.width)
                        }
                        continue
                    }
                    // Destination (tx, ty) reads the picture's (X, Y), the part's (X - sx, Y - sy).
                    let out = CopyPlacement.turned(moved, quarterTurns: turns, width: w, height: h)
                    let (cx, cy) = turns == 1 ? (-sx, h - 1 - sy) : turns == 2 ? (w - 1 - sx, h - 1 - sy) : (w - 1 - sx, -sy)
                    tb_copy_turned(dst, ds, out.x0, out.y0, out.x1, out.y1, s, ss, Int32(turns), cx, cy)
                }
            }
        }
        if placement.leavesStrips, region.rects.contains(where: { DamageRegion.contains($0, bounds) }) {
            for strip in placement.uncovered(width: width, height: height) {
                let out = CopyPlacement.turned(strip, quarterTurns: turns, width: w, height: h)
                for y in out.y0..<out.y1 { tb_fill_streaming(dst + y * ds + out.x0, out.width, placement.fill) }
                pixelsWritten += out.width * out.height
            }
        }
        tb_store_fence()
        return pixelsWritten * 4
    }

    /// As `copy(_:to:pitch:)`, into a 16 bpp RGB565 framebuffer (vc4's fbdev emulation, fbtft SPI
    /// panels), ordered-dithered by the pixel's place on the screen. Returns the bytes written.
    @discardableResult
    func copyRGB565(_ region: DamageRegion, to destination: UnsafeMutableRawPointer, pitch: Int) -> Int {
        var written = 0
        for part in parts {
            let area = part.rect.intersection(bounds)
            guard !area.isEmpty else { continue }
            let stride = part.pixels.stride
            part.pixels.pixels.withUnsafeBufferPointer { src in
                for unclipped in region.rects {
                    let rect = unclipped.intersection(area)
                    guard !rect.isEmpty else { continue }
                    for y in rect.y0..<rect.y1 {
                        let row = (destination + y * pitch + rect.x0 * 2).assumingMemoryBound(to: UInt16.self)
                        let from = (y - part.y) * stride - part.x
                        for x in rect.x0..<rect.x1 { row[x - rect.x0] = PixelBuffer.rgb565(src[from + x], x: x, y: y) }
                    }
                    written += rect.width * rect.height
                }
            }
        }
        return 2 * written
    }
}
