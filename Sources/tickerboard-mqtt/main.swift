// tickerboard-mqtt: the Home Assistant bridge (see Sources/Bridge). The display daemon has no network;
// this process has, and talks to the daemon only through its control socket.
import Bridge
import Control

#if canImport(Glibc)
import Glibc
#endif

exit(BridgeCommand.main(Array(CommandLine.arguments.dropFirst()), version: TickerboardVersion.string))
