#ifndef SPLASHD_CSDBUS_SHIM_H
#define SPLASHD_CSDBUS_SHIM_H
// sd-bus, libsystemd's D-Bus client (the desktop's signals), through its non-variadic calls:
// sd_bus_message_read_basic, append_basic, enter_container. A module of its own, imported internally
// by Desktop alone: its headers (sd-event's with them) changed which module other modules saw glibc's
// `struct stat` come from.
#include <systemd/sd-bus.h>
#endif
