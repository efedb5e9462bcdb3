// LinuxIO: placeholder
