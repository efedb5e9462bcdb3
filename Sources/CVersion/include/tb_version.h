// The release version as the executable carries it (see version.c).
#ifndef TB_VERSION_H
#define TB_VERSION_H

/// The version this executable says it is: the one written in version.c, or the one a packager
/// stamped into the finished binary (systemd/build-deb.sh --version).
const char *tb_version(void);

#endif
