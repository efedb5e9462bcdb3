import Chart
import Feed
import KioskCore
import Raster
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
        let canvas = Canvas(width: size.0, height: size.1)
        canvas.clear(config.palette.background)
        if where_ != .full {
            place(still.picture, at: IntRect(x0: 0, y0: 0, x1: size.0, y1: size.1), in: &canvas.buffer)
        }
        let tape = TapeRenderer(position: where_, width: size.0, height: size.1, fonts: fonts, palette: config.palette,
                                speed: config.tapeSpeed)
        tape.brightness = request.brightness
        let items = still.tapeEntries.map { TapeItem(entry: $0, palette: config.palette, options: config.rangeOptions) }
        tape.setItems(items, now: 0)
        tape.draw(at: time, on: canvas)
        return Result(picture: canvas.buffer, band: tape.band, items: items, messages: still.messages, status: still.status)
    }

    /// Copies `picture` into `area` of `buffer` (row by row, clipped to both).
    package static func place(_ picture: PixelBuffer, at area: IntRect, in buffer: inout PixelBuffer) {
        let w = min(picture.width, area.width, buffer.width - area.x0)
        let h = min(picture.height, area.height, buffer.height - area.y0)
        guard w > 0, h > 0, area.x0 >= 0, area.y0 >= 0 else { return }
        let ss = picture.stride, ds = buffer.stride
        buffer.pixels.withUnsafeMutableBufferPointer { d in
            picture.pixels.withUnsafeBufferPointer { s in
                for y in 0..<h {
                    (d.baseAddress! + (area.y0 + y) * ds + area.x0).update(from: s.baseAddress! + y * ss, count: w)
                }
            }
        }
    }
}
