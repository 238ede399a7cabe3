# SPDX-License-Identifier: LGPL-2.1-or-later
# The configuration of a private system bus that lets every process on it
# own and reach any name, as scripts/test-package and its runs in the
# Debian roots use one (polkitd, the daemon's polkit checks, the services
# gnome-shell asks for).
#
#   source scripts/lib/system-bus-config.bash
#   system_bus_config SOCKET > system.conf    # it listens on unix:path=SOCKET

system_bus_config() {
    cat <<CONF
<!DOCTYPE busconfig PUBLIC "-//freedesktop//DTD D-Bus Bus Configuration 1.0//EN"
 "http://www.freedesktop.org/standards/dbus/1.0/busconfig.dtd">
<busconfig>
  <type>system</type>
  <listen>unix:path=$1</listen>
  <auth>EXTERNAL</auth>
  <policy context="default">
    <allow user="*"/><allow own="*"/><allow send_destination="*"/><allow receive_sender="*"/>
  </policy>
</busconfig>
CONF
}
