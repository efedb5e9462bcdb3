// The release version: the one place it is written. It lives in a section of its own, 64 bytes
// and NUL-terminated, so that a packager can give a finished executable another version without
// building it again (systemd/build-deb.sh --version: `objcopy --update-section`), the way a fleet
// publishes a rebuilt package; `tickerboard --version`, the status file and Home Assistant then say
// the stamped one. Read through a function, so no compiler folds the text into its callers.
#include "tb_version.h"

__attribute__((used, section(".tickerboard_version"), aligned(64)))
const char tb_version_stamp[64] = "0.1.0";

const char *tb_version(void) { return tb_version_stamp; }
