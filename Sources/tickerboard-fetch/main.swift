// tickerboard-fetch: the fetcher executable; everything it does lives in the Fetch module.
import Control
import Fetch

#if canImport(Glibc)
import Glibc
#endif

var environment: [String: String] = [:]
var entry = environ
while let pointer = entry.pointee {
    let text = String(cString: pointer)
    if let eq = text.firstIndex(of: "=") { environment[String(text[..<eq])] = String(text[text.index(after: eq)...]) }
    entry += 1
}
if CommandLine.arguments.dropFirst().first == "--version" {
    print("tickerboard-fetch \(TickerboardVersion.string)")
    exit(0)
}
exit(FetchCommand.main(Array(CommandLine.arguments.dropFirst()), environment: environment, version: TickerboardVersion.string))
