import Raster
import Text

/// A message over the picture (`tickerboard ctl message`): a band across the foot of the screen (a
/// "lower third", over the range selector, which matters least on a wall while a message is up;
/// on a touch screen, where a finger must still reach the selector, the band just above it) in
/// the palette's text colour with the message in its background colour, so it reads on any scene
/// and in either palette. Drawn last, over every region a frame redraws, so partial redraws under it
/// stay correct; its coming and going redraws the whole picture.
public struct Banner: Equatable {
    public var text: String
    public let face: FontFace
    /// On a touch screen: the band sits on top of the range selector's touch band, not over it.
    public var aboveSelector: Bool

    public init(text: String, face: FontFace, aboveSelector: Bool = false) {
        self.text = text
        self.face = face
        self.aboveSelector = aboveSelector
    }

    public static func == (a: Banner, b: Banner) -> Bool { a.text == b.text && a.face === b.face && a.aboveSelector == b.aboveSelector }

    /// The band's rectangle on a picture of `width` x `height`, and its font: along the foot, or
    /// with its lower edge at `bottom` (the selector's touch band's top) when one is given.
    func geometry(width: Int, height: Int, bottom: Int? = nil) -> (rect: IntRect, font: Font) {
        // Readable from across a room, a little under the header's price: 1/20 of the short side.
        let size = max(12, Double(min(width, height)) / 20)
        let font = Font(face: face, clampingPixelSize: size)
        let bandHeight = Int((size * 2).rounded())
        let y1 = min(height, max(bandHeight, bottom ?? height))
        return (IntRect(x0: 0, y0: max(0, y1 - bandHeight), x1: width, y1: y1), font)
    }

    /// The words as they fit a band, worked out once per text and size: a message of one
    /// 1,300-scalar grapheme cluster was re-measured a scalar at a time on every frame (a crawling
    /// tape fell from 42 to 10 frames a second).
    struct Fit {
        var text: String, width: Double, pixelSize: Double, shown: String
    }

    /// `selectorTop`: where the range selector's touch band begins on this scene (nil: none shown).
    func draw(on canvas: Canvas, regions: [IntRect], palette: ChartPalette, text renderer: TextRenderer, fit: inout Fit?,
              selectorTop: Double? = nil) {
        let bottom = aboveSelector ? selectorTop.map { Int($0.rounded(.down)) } : nil
        let (band, font) = geometry(width: canvas.width, height: canvas.height, bottom: bottom)
        let margin = Double(band.height) * 0.5
        let width = Double(band.width) - 2 * margin
        if let f = fit, f.text == text, f.width == width, f.pixelSize == font.pixelSize {} else {
            fit = Fit(text: text, width: width, pixelSize: font.pixelSize, shown: text.truncated(toWidth: width, font: font))
        }
        let shown = fit?.shown ?? ""
        for region in regions {
            let clip = region.intersection(band)
            guard !clip.isEmpty else { continue }
            canvas.clip = clip
            canvas.fillRect(x: Double(band.x0), y: Double(band.y0), width: Double(band.width), height: Double(band.height),
                            paint: .solid(palette.text))
            renderer.draw(shown, font: font, color: palette.background, x: Double(band.width) / 2,
                          y: Double(band.y0) + Double(band.height) / 2, alignment: TextAlignment(.center, .middle), into: &canvas.buffer, clip: clip)
        }
        canvas.clip = canvas.buffer.bounds
    }
}
