/* SPDX-License-Identifier: LGPL-2.1-or-later */
#ifndef CGIO_SHIM_H
#define CGIO_SHIM_H

#define G_SETTINGS_ENABLE_BACKEND
#include <gio/gio.h>
#include <gio/gsettingsbackend.h>
#include <gio/gdesktopappinfo.h>

/* g_signal_connect is a macro, which Swift does not import; this is the
   same call as a function, for GSettings' per-key signals ("changed",
   "writable-changed"), whose handlers take (object, key, data). */
static inline gulong cgio_connect_key_signal(gpointer instance, const gchar *signal,
                                             void (*handler)(GSettings *, const gchar *, gpointer),
                                             gpointer data) {
    return g_signal_connect_data(instance, signal, G_CALLBACK(handler), data, NULL, 0);
}

/* The type name of GIO's default settings backend (DConfSettingsBackend,
   GKeyfileSettingsBackend, GMemorySettingsBackend): names the store in
   errors. G_OBJECT_TYPE_NAME is a macro, which Swift does not import. */
static inline const gchar *cgio_default_backend_name(void) {
    GSettingsBackend *backend = g_settings_backend_get_default();
    const gchar *name = G_OBJECT_TYPE_NAME(backend);
    g_object_unref(backend);
    return name;
}

#endif
