# SPDX-License-Identifier: GPL-2.0-or-later
"""The Cinnamon suite's case of Cinnamon's own settings (mixed into run's
Cases): the daemon keeps the features in Cinnamon's schemas, and Cinnamon
acts on them."""

import subprocess

from harness import CONTRACT
from waiting import wait_for

MAGNIFIER = 'imports.ui.main.magnifier.enabled'


class SettingsCases:
    def cinnamon_gsettings(self, schema, key):
        return subprocess.run(['gsettings', 'get', schema, key], env=self.env, capture_output=True, text=True,
                              timeout=20).stdout.strip()

    def zoom_is_cinnamons(self):
        """Features1.Zoom is Cinnamon's magnifier: SetFeature(Zoom) writes
        org.cinnamon.desktop.a11y.applications screen-magnifier-enabled and
        Cinnamon's magnifier follows it, off again as well; GNOME's key is
        left alone. Control: with Zoom off the magnifier is off."""
        features = self.service(CONTRACT['INTERFACES']['features'])
        if self.js(MAGNIFIER):
            raise AssertionError('control: Cinnamon\'s magnifier is on before the case')
        gnome = self.cinnamon_gsettings('org.gnome.desktop.a11y.applications', 'screen-magnifier-enabled')
        features.SetFeature('Zoom', True, timeout=10)
        try:
            wait_for(lambda: self.js(MAGNIFIER), 5, 0.05, 'Cinnamon\'s magnifier on')
            written = self.cinnamon_gsettings('org.cinnamon.desktop.a11y.applications', 'screen-magnifier-enabled')
            if written != 'true':
                raise AssertionError(f'Cinnamon\'s key says {written}')
            source = str(self.service('org.freedesktop.DBus.Properties').Get(
                CONTRACT['INTERFACES']['features'], 'Sources', timeout=10)['Zoom'])
        finally:
            features.SetFeature('Zoom', False, timeout=10)
        wait_for(lambda: not self.js(MAGNIFIER), 5, 0.05, 'Cinnamon\'s magnifier off again')
        if self.cinnamon_gsettings('org.gnome.desktop.a11y.applications', 'screen-magnifier-enabled') != gnome:
            raise AssertionError('GNOME\'s key was written')
        return f'Sources says {source}; Cinnamon\'s magnifier on, then off again; GNOME\'s key untouched'
