// SPDX-License-Identifier: GPL-2.0-or-later
// Fake input for shell/kde/tests/run: a Wayland client of KWin's
// org_kde_kwin_fake_input protocol (KWin allows it when started with
// KWIN_WAYLAND_NO_PERMISSION_CHECKS=1). It reads one command a line on
// stdin and answers "ok" once KWin has processed it (after a roundtrip):
//
//   move X Y            pointer to X, Y (logical pixels)
//   button CODE 1|0     press or release a button (linux/input-event-codes.h, BTN_LEFT 272)
//   key CODE 1|0        press or release a key (linux/input-event-codes.h)
//
// Built at test time: wayland-scanner makes fake-input-client.h and
// fake-input-protocol.c from plasma-wayland-protocols' fake-input.xml.
#include <stdio.h>
#include <string.h>
#include <wayland-client.h>
#include "fake-input-client.h"

static struct org_kde_kwin_fake_input *fake_input;

static void global_added(void *data, struct wl_registry *registry, uint32_t name, const char *interface,
                         uint32_t version)
{
    (void)data;
    if (strcmp(interface, org_kde_kwin_fake_input_interface.name) == 0)
        fake_input = wl_registry_bind(registry, name, &org_kde_kwin_fake_input_interface, version < 4 ? version : 4);
}

static void global_removed(void *data, struct wl_registry *registry, uint32_t name)
{
    (void)data;
    (void)registry;
    (void)name;
}

static const struct wl_registry_listener registry_listener = {global_added, global_removed};

int main(void)
{
    struct wl_display *display = wl_display_connect(NULL);
    if (display == NULL) {
        fprintf(stderr, "fake-input: cannot connect to the Wayland display\n");
        return 1;
    }
    struct wl_registry *registry = wl_display_get_registry(display);
    wl_registry_add_listener(registry, &registry_listener, NULL);
    wl_display_roundtrip(display);
    if (fake_input == NULL) {
        fprintf(stderr, "fake-input: the compositor offers no org_kde_kwin_fake_input\n");
        return 1;
    }
    org_kde_kwin_fake_input_authenticate(fake_input, "guided-access tests", "drives the on-screen tests");
    char line[256];
    while (fgets(line, sizeof line, stdin) != NULL) {
        double x, y;
        unsigned code, state;
        if (sscanf(line, "move %lf %lf", &x, &y) == 2) {
            org_kde_kwin_fake_input_pointer_motion_absolute(fake_input, wl_fixed_from_double(x),
                                                            wl_fixed_from_double(y));
        } else if (sscanf(line, "button %u %u", &code, &state) == 2) {
            org_kde_kwin_fake_input_button(fake_input, code, state);
        } else if (sscanf(line, "key %u %u", &code, &state) == 2) {
            org_kde_kwin_fake_input_keyboard_key(fake_input, code, state);
        } else {
            printf("error unknown command\n");
            fflush(stdout);
            continue;
        }
        if (wl_display_roundtrip(display) < 0) {
            fprintf(stderr, "fake-input: lost the display\n");
            return 1;
        }
        printf("ok\n");
        fflush(stdout);
    }
    wl_display_disconnect(display);
    return 0;
}
