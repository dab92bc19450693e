#ifndef SPLASHD_CSYSTEMD_SHIM_H
#define SPLASHD_CSYSTEMD_SHIM_H
// libsystemd: sd_notify, sd_listen_fds, sd_watchdog_enabled and sd_journal_sendv.
// sd_journal_send is variadic and cannot be called from Swift; sd_journal_sendv takes an iovec array.
#include <systemd/sd-daemon.h>
#include <systemd/sd-journal.h>
#include <sys/uio.h>
#endif
