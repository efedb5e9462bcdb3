// tickerboard: the executable; its commands live in the Commands module.
import Commands

#if canImport(Glibc)
import Glibc
#endif

exit(Tickerboard.main(Array(CommandLine.arguments.dropFirst())))
