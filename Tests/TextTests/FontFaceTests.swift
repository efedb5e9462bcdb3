import Raster
import Testing
@testable import Text

#if canImport(Glibc)
import Glibc
#endif

@Suite("Fonts: loading, lookup, errors")
struct FontFaceTests {
    @Test("deja vu sans loads with its metrics") func dejaVuSansLoadsWithItsMetrics() throws {
        let face = try TestFonts.regular()
        #expect(face.familyName == "DejaVu Sans")
        #expect(face.styleName == "Book")
        #expect(face.unitsPerEm == 2048)
        #expect(face.ascender == 1901)
        #expect(face.descender == 483)
        #expect(face.hasKerning)
        #expect(face.hasGlyph(for: "\u{2212}"))
        #expect(!face.hasGlyph(for: "\u{4E00}"))
    }

    @Test("locator finds deja vu by default") func locatorFindsDejaVuByDefault() throws {
        #expect(try FontLocator.path(for: .regular) == TestFonts.regularPath)
        #expect(try FontLocator.path(for: .bold) == TestFonts.boldPath)
        let fonts = try FontSet.load()
        #expect(fonts.regular.styleName == "Book")
        #expect(fonts[.bold].styleName == "Bold")
    }

    @Test("explicit path wins and AM issing one is an error not AF allback") func explicitPathWinsAndAMissingOneIsAnErrorNotAFallback() throws {
        let serif = "/usr/share/fonts/truetype/dejavu/DejaVuSerif.ttf"
        #expect(try FontLocator.path(for: .regular, explicit: serif) == serif)
        let missing = "/nonexistent/fonts/Missing.ttf"
        #expect(throws: TextError.fontFileMissing(path: missing)) {
            try FontLocator.path(for: .regular, explicit: missing)
        }
        #expect(throws: TextError.fontFileMissing(path: missing)) { try FontSet.load(regularPath: missing) }
    }

    @Test("missing font message names the path and the package") func missingFontMessageNamesThePathAndThePackage() {
        let path = "/nonexistent/DejaVuSans.ttf"
        do {
            _ = try FontFace(path: path)
            Issue.record("a missing file loaded")
        } catch {
            #expect(error == .fontFileMissing(path: path))
            #expect(error.description.contains(path))
            #expect(error.description.contains("install the Debian package fonts-dejavu-core"))
        }
    }

    @Test("fallback search picks the right weight of any sans") func fallbackSearchPicksTheRightWeightOfAnySans() throws {
        let dir = scratchPath("fonts")
        mkdir(dir, 0o755)
        mkdir(dir + "/sub", 0o755)
        defer {
            for name in ["sub/XSans.ttf", "sub/XSans-Bold.ttf", "XSans-Oblique.ttf", "XSerif.ttf"] {
                unlink(dir + "/" + name)
            }
            rmdir(dir + "/sub")
            rmdir(dir)
        }
        symlink(TestFonts.regularPath, dir + "/sub/XSans.ttf")
        symlink(TestFonts.boldPath, dir + "/sub/XSans-Bold.ttf")
        symlink(TestFonts.regularPath, dir + "/XSans-Oblique.ttf")
        symlink(TestFonts.regularPath, dir + "/XSerif.ttf")
        let nowhere: [FontWeight: String] = [.regular: "/nonexistent/a.ttf", .bold: "/nonexistent/b.ttf"]
        #expect(try FontLocator.path(for: .regular, defaults: nowhere, directories: [dir]) == dir + "/sub/XSans.ttf")
        #expect(try FontLocator.path(for: .bold, defaults: nowhere, directories: [dir]) == dir + "/sub/XSans-Bold.ttf")
        do {
            _ = try FontLocator.path(for: .regular, defaults: nowhere, directories: [dir + "/empty"])
            Issue.record("found a font in an empty directory")
        } catch {
            guard case .noFontFound = error else { Issue.record("wrong error \(error)"); return }
            #expect(error.description.contains("fonts-dejavu-core"))
        }
    }

    @Test("garbage file is AC orrupt font error") func garbageFileIsACorruptFontError() {
        let path = scratchPath("garbage.ttf")
        defer { unlink(path) }
        var state: UInt32 = 12345
        writeFile(path, (0..<4096).map { _ in
            state = state &* 1_103_515_245 &+ 12345
            return UInt8(truncatingIfNeeded: state >> 16)
        })
        do {
            _ = try FontFace(path: path)
            Issue.record("garbage loaded as a font")
        } catch {
            guard case .corruptFont(let p, _) = error else { Issue.record("wrong error \(error)"); return }
            #expect(p == path)
            #expect(error.description.contains("corrupt"))
        }
    }

    @Test("empty file is AC orrupt font error") func emptyFileIsACorruptFontError() {
        let path = scratchPath("empty.ttf")
        defer { unlink(path) }
        writeFile(path, [])
        // do/catch rather than `#expect { } throws:`, which Swift 6.0's type checker crashes on.
        do {
            _ = try FontFace(path: path)
            Issue.record("an empty file loaded as a font")
        } catch {
            guard case .corruptFont = error else { Issue.record("wrong error \(error)"); return }
        }
    }

    /// A FIFO named as the font (a config pointing at the wrong thing) must neither block start-up
    /// nor reach FreeType; a directory neither.
    @Test("fifo or directory is no font") func fifoOrDirectoryIsNoFont() {
        let fifo = scratchPath("font.fifo"), dir = scratchPath("font.dir")
        defer { unlink(fifo); rmdir(dir) }
        mkfifo(fifo, 0o600)
        mkdir(dir, 0o700)
        for path in [fifo, dir] {
            do {
                _ = try FontFace(path: path)
                Issue.record("\(path) loaded as a font")
            } catch {
                guard case .corruptFont(let p, _) = error else { Issue.record("wrong error \(error)"); continue }
                #expect(p == path)
            }
        }
    }

    /// A truncated real font may open (its header is intact) but its glyphs cannot load: either a
    /// clear error at open, or boxes at draw time, never a crash.
    @Test("truncated font fails cleanly") func truncatedFontFailsCleanly() throws {
        let path = scratchPath("truncated.ttf")
        defer { unlink(path) }
        writeFile(path, readPrefix(TestFonts.regularPath, count: 20_000))
        let face: FontFace
        do {
            face = try FontFace(path: path)
        } catch {
            guard case .corruptFont = error else { Issue.record("wrong error \(error)"); return }
            return
        }
        var buffer = canvas()
        let font = try Font(face: face, pixelSize: 24)
        let renderer = TextRenderer()
        let damage = renderer.draw("Hello 123", font: font, color: white, x: 10, y: 40, into: &buffer)
        #expect(!damage.isEmpty)
    }
}

@Suite("Fonts: a CJK fallback behind DejaVu Sans")
struct FontFallbackTests {
    /// What `text` looks like drawn in `face` at 24 px: the pixels and the layout's glyphs.
    static func drawn(_ text: String, _ face: FontFace) -> (pixels: PixelBuffer, glyphs: [PositionedGlyph], width: Double) {
        let font = Font(face: face, clampingPixelSize: 24)
        var buffer = canvas(120, 40)
        _ = TextRenderer().draw(text, font: font, color: white, x: 4, y: 30, into: &buffer)
        let line = font.layout(text)
        return (buffer, line.glyphs, line.metrics.width)
    }

    @Test("a character DejaVu lacks comes from the CJK font when one is installed, else it is the box")
    func fallbackOrBox() throws {
        let alone = try TestFonts.regular()
        let box = Self.drawn("取一", alone)
        #expect(box.glyphs.allSatisfy { $0.glyph == FontFace.missingGlyph })
        #expect(!alone.canDraw("取"))
        guard let path = FontLocator.fallbackPaths.first(where: { access($0, R_OK) == 0 }) else { return }
        let cjk = try FontFace(path: path)
        let backed = try TestFonts.regular()
        backed.fallback = cjk
        #expect(backed.canDraw("取") && !backed.hasGlyph(for: "取"))
        let drawn = Self.drawn("取一", backed)
        #expect(drawn.glyphs.allSatisfy { $0.glyph != FontFace.missingGlyph && $0.glyph & FontFace.fallbackBit != 0 })
        // The same advances as the CJK font's own layout (converted to DejaVu's units and back).
        #expect(abs(drawn.width - Self.drawn("取一", cjk).width) < 0.05)
        // The glyphs themselves, not boxes: the pixels match the CJK font's own drawing.
        #expect(difference(drawn.pixels, Self.drawn("取一", cjk).pixels).count == 0)
        #expect(difference(drawn.pixels, box.pixels).count > 0)
        // Latin stays DejaVu's, with its kerning.
        #expect(Self.drawn("AV", backed).width == Self.drawn("AV", alone).width)
    }
}
