// SPDX-License-Identifier: GPL-2.0-or-later
// The clipboard and the primary selection emptied: at an assessment's
// begin and end unless it allows the clipboard (assessmentGuard.js). The
// shell owns both selections with empty text afterwards, so what an app
// copied before (or during) is no longer offered to anyone.

export function clearClipboard({St}) {
    const clipboard = St.Clipboard.get_default();
    for (const type of [St.ClipboardType.CLIPBOARD, St.ClipboardType.PRIMARY])
        clipboard.set_text(type, '');
}
