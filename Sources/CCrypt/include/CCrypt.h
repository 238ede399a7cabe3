// SPDX-License-Identifier: LGPL-2.1-or-later
#ifndef CCRYPT_H
#define CCRYPT_H

#include <stddef.h>
#include <stdint.h>

/* Passcode hashing the way the system hashes passwords: libxcrypt
   (libcrypt1, on every Debian machine), whose yescrypt ("$y$") is what
   /etc/shadow holds. Plain C types only, so no GLib or libcrypt type
   reaches Swift. */

/// Bytes a crypt string (setting and hash) may take, with its NUL:
/// libxcrypt's CRYPT_OUTPUT_SIZE.
#define CCRYPT_OUTPUT_SIZE 384

/// Hashes `passcode` with yescrypt at `cost` (1–11: the count libxcrypt's
/// crypt_gensalt takes, as YESCRYPT_COST_FACTOR in /etc/login.defs; each
/// step doubles time and memory) and a fresh random salt. Writes the crypt
/// string ("$y$…", as in /etc/shadow) into `out`, which holds `out_size`
/// bytes (CCRYPT_OUTPUT_SIZE). Returns 0, or an errno value (EINVAL for a
/// cost outside 1–11, ERANGE for a short `out`, ENOMEM).
int ccrypt_hash_yescrypt(const char *passcode, unsigned long cost, char *out, size_t out_size);

/// Whether `passcode` hashes to `stored`, a crypt string made by any method
/// libxcrypt knows. Returns 1 when it does, 0 when it does not, and -1 when
/// `stored` is no usable crypt string or memory ran out (errno says which).
/// The comparison takes the same time wherever the strings differ.
int ccrypt_matches(const char *passcode, const char *stored);

/// PBKDF2-HMAC-SHA256 (RFC 8018) over GLib's HMAC, for passcodes hashed by
/// versions that stored PBKDF2: derives `key_length` bytes into `key`.
/// Returns 0, or EINVAL when `rounds` is 0.
int ccrypt_pbkdf2_sha256(const uint8_t *password, size_t password_length, const uint8_t *salt,
                         size_t salt_length, uint32_t rounds, uint8_t *key, size_t key_length);

#endif
