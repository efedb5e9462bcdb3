import Chart
import Feed
import KioskCore
import Raster
import StatusModel
import Text

/// `render --config … --scene tape` and the chart with a tape band: the daemon's picture of the
/// config (StillFrame) in what the band leaves, the tape drawn over its band at the crawl time asked for.
package enum TapeStill {
    package struct Result {
        package var picture: PixelBuffer
        package var band: IntRect
        package var items: [TapeItem]
        package var messages: [String]
        /// What the status file says of the scene beside the band (the chart's keys).
        package var status: KioskStatus
    }

    /// `scene` is what shares the screen with a band (line, bars, draw, watchlist) or `nil` for the
    /// tape alone; `position` where the band goes (off is taken as full: the tape was asked for).
    package static func render(_ request: StillFrame.Request, config: Config, position: TapePosition, time: Double,
                               fonts: FontSet) -> Result? {
        let size = request.size ?? config.mode.map { ($0.width, $0.height) } ?? (1920, 1080)
        let where_ = position == .off ? TapePosition.full : position
        var chartRequest = request
        chartRequest.size = size
        // The daemon's own picture (the scene beside its band when the config has one); alone,
        // only the instruments are wanted (the core's entries).
        guard let still = StillFrame.render(chartRequest, fonts: fonts) else { return nil }
        // The band lives in what the safe area leaves, as the daemon composes it (OutputScreen).
        let m = OutputScreen.margins(width: size.0, height: size.1, safeArea: config.safeArea)
        let area = IntRect(x0: m.x, y0: m.y, x1: size.0 - m.x, y1: size.1 - m.y)
        let canvas = Canvas(width: size.0, height: size.1)
        canvas.clear(config.palette.background)
        let content = Canvas(width: area.width, height: area.height)
        content.clear(config.palette.background)
        if where_ != .full {
            place(still.picture, at: IntRect(x0: 0, y0: 0, x1: size.0, y1: size.1), in: &canvas.buffer)
            crop(still.picture, area, into: &content.buffer)
        }
        let tape = TapeRenderer(position: where_, width: area.width, height: area.height, fonts: fonts, palette: config.palette,
                                speed: config.tapeSpeed)
        tape.brightness = request.brightness
        let items = still.tapeEntries.map { TapeItem(entry: $0, palette: config.palette, options: config.rangeOptions) }
        tape.setItems(items, now: 0)
        tape.draw(at: time, on: content)
        place(content.buffer, at: area, in: &canvas.buffer)
        let b = tape.band
        return Result(picture: canvas.buffer, band: IntRect(x0: b.x0 + m.x, y0: b.y0 + m.y, x1: b.x1 + m.x, y1: b.y1 + m.y),
                      items: items, messages: still.messages, status: still.status)
    }

    /// Copies `picture` into `area` of `buffer` (row by row, clipped to both).
    package static func place(_ picture: PixelBuffer, at area: IntRect, in buffer: inout PixelBuffer) {
        copy(picture, IntRect(x0: 0, y0: 0, x1: area.width, y1: area.height), into: &buffer, x: area.x0, y: area.y0)
    }

    /// Copies `area` of `picture` into the top left of `buffer`.
    static func crop(_ picture: PixelBuffer, _ area: IntRect, into buffer: inout PixelBuffer) {
        copy(picture, area, into: &buffer, x: 0, y: 0)
    }

    /// Copies `source` of `picture` to (`x`, `y`) of `buffer`, row by row, clipped to both.
    private static func copy(_ picture: PixelBuffer, _ source: IntRect, into buffer: inout PixelBuffer, x: Int, y: Int) {
        let r = source.intersection(picture.bounds)
        let w = min(r.width, buffer.width - x), h = min(r.height, buffer.height - y)
        guard w > 0, h > 0, x >= 0, y >= 0 else { return }
        let ss = picture.stride, ds = buffer.stride
        buffer.pixels.withUnsafeMutableBufferPointer { d in
            picture.pixels.withUnsafeBufferPointer { s in
                for row in 0..<h {
                    (d.baseAddress! + (y + row) * ds + x).update(from: s.baseAddress! + (r.y0 + row) * ss + r.x0, count: w)
                }
            }
        }
    }
}
