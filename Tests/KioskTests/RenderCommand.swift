// The tests' way to run `tickerboard render …` as a user would and look at what it wrote.
import Commands
import Display
import DisplayModel
import Kiosk
import KioskCore
import Raster
import TestSupport
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// Runs `tickerboard ARGUMENTS --output TMP` and reads the frame it wrote; `tag` keeps the files
/// of tests running side by side apart.
func renderedFrame(_ arguments: [String], tag: String) throws -> PixelBuffer {
    let out = TestPaths.temporary(tag + ".png")
    defer { unlink(out) }
    let status = Tickerboard.main(arguments + ["--output", out])
    #expect(status == 0, "tickerboard \(arguments.joined(separator: " ")) exited \(status)")
    return try PNG.read(out)
}
