/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * A note-taking app that opts in to Guided Access, in C with GDBus.
 *
 * The same app as Examples/python/notes_app.py: it registers two custom
 * restrictions, follows them through RestrictionChanged and the session
 * through StatusChanged, and reads the accessibility features it adapts
 * to, printing one line for each thing it learns. Its proxies are generated
 * by gdbus-codegen from the installed interface XML (see build.sh), so the
 * compiler checks every call against the contract.
 *
 *     notes-app [--address ADDRESS] [--events N]
 */
#include <gio/gio.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "guided-access-generated.h"

#define BUS_NAME "org.guidedaccess.GuidedAccess1"
#define OBJECT_PATH "/org/guidedaccess/GuidedAccess1"

static const char *const restrictions[][3] = {
    {"org.example.notes.share", "Sharing", "Sending notes to other apps"},
    {"org.example.notes.delete", "Deleting notes", "Removing notes for good"},
};

typedef struct {
    GMainLoop *loop;
    int seen;
    int events;
} App;

/* One line per change; with --events N, the app ends after N of them. */
static void changed(App *app, const char *line) {
    printf("%s\n", line);
    fflush(stdout);
    if (app->events > 0 && ++app->seen >= app->events) g_main_loop_quit(app->loop);
}

static gboolean is_mine(const char *identifier) {
    for (size_t i = 0; i < G_N_ELEMENTS(restrictions); i++)
        if (strcmp(identifier, restrictions[i][0]) == 0) return TRUE;
    return FALSE;
}

static void on_restriction_changed(GaRestrictions1 *proxy, const char *identifier, const char *state, App *app) {
    (void)proxy;
    if (!is_mine(identifier)) return;
    g_autofree char *line = g_strdup_printf("restriction %s: %s", identifier, state);
    changed(app, line);
}

static void on_status_changed(GaGuidedAccess1 *proxy, gboolean enabled, App *app) {
    (void)proxy;
    changed(app, enabled ? "guided access: on" : "guided access: off");
}

static GDBusConnection *connect_bus(const char *address, GError **error) {
    if (address == NULL || *address == '\0') return g_bus_get_sync(G_BUS_TYPE_SESSION, NULL, error);
    return g_dbus_connection_new_for_address_sync(
        address, G_DBUS_CONNECTION_FLAGS_AUTHENTICATION_CLIENT | G_DBUS_CONNECTION_FLAGS_MESSAGE_BUS_CONNECTION,
        NULL, NULL, error);
}

int main(int argc, char **argv) {
    const char *address = g_getenv("GUIDED_ACCESS_BUS_ADDRESS");
    App app = {.loop = g_main_loop_new(NULL, FALSE)};
    for (int i = 1; i + 1 < argc; i += 2) {
        if (strcmp(argv[i], "--address") == 0) address = argv[i + 1];
        else if (strcmp(argv[i], "--events") == 0) app.events = atoi(argv[i + 1]);
    }
    g_autoptr(GError) error = NULL;
    g_autoptr(GDBusConnection) bus = connect_bus(address, &error);
    g_autoptr(GaGuidedAccess1) session = bus ? ga_guided_access1_proxy_new_sync(
        bus, G_DBUS_PROXY_FLAGS_NONE, BUS_NAME, OBJECT_PATH, NULL, &error) : NULL;
    g_autoptr(GaRestrictions1) registry = session ? ga_restrictions1_proxy_new_sync(
        bus, G_DBUS_PROXY_FLAGS_NONE, BUS_NAME, OBJECT_PATH, NULL, &error) : NULL;
    g_autoptr(GaFeatures1) features = registry ? ga_features1_proxy_new_sync(
        bus, G_DBUS_PROXY_FLAGS_NONE, BUS_NAME, OBJECT_PATH, NULL, &error) : NULL;
    if (features == NULL) {
        fprintf(stderr, "notes: cannot reach Guided Access: %s\n", error->message);
        return 1;
    }
    g_signal_connect(registry, "restriction-changed", G_CALLBACK(on_restriction_changed), &app);
    g_signal_connect(session, "status-changed", G_CALLBACK(on_status_changed), &app);

    GVariantBuilder entries;
    g_variant_builder_init(&entries, G_VARIANT_TYPE("a(sss)"));
    for (size_t i = 0; i < G_N_ELEMENTS(restrictions); i++)
        g_variant_builder_add(&entries, "(sss)", restrictions[i][0], restrictions[i][1], restrictions[i][2]);
    g_auto(GStrv) paths = NULL;
    if (!ga_restrictions1_call_register_sync(registry, g_variant_builder_end(&entries), &paths, NULL, &error)) {
        fprintf(stderr, "notes: cannot register with Guided Access: %s\n", error->message);
        return 1;
    }
    printf("registered %u restrictions\n", g_strv_length(paths));
    for (size_t i = 0; i < G_N_ELEMENTS(restrictions); i++) {
        g_autofree char *state = NULL;
        if (!ga_restrictions1_call_get_state_sync(registry, restrictions[i][0], &state, NULL, &error)) {
            fprintf(stderr, "notes: %s\n", error->message);
            return 1;
        }
        printf("restriction %s: %s\n", restrictions[i][0], state);
    }
    printf("feature ReduceMotion: %s\n", ga_features1_get_reduce_motion(features) ? "on" : "off");
    printf("feature BoldText: %s\n", ga_features1_get_bold_text(features) ? "on" : "off");
    printf("guided access: %s\n", ga_guided_access1_get_enabled(session) ? "on" : "off");
    fflush(stdout);
    g_main_loop_run(app.loop);
    g_main_loop_unref(app.loop);
    return 0;
}
