#ifndef CGIO_SHIM_H
#define CGIO_SHIM_H

#include <gio/gio.h>

/* g_signal_connect is a macro, which Swift does not import; this is the
   same call as a function, for handlers that take (object, string, data). */
static inline gulong cgio_connect_changed(gpointer instance,
                                          void (*handler)(GSettings *, const gchar *, gpointer),
                                          gpointer data) {
    return g_signal_connect_data(instance, "changed", G_CALLBACK(handler), data, NULL, 0);
}

#endif
