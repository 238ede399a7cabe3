// SPDX-License-Identifier: LGPL-2.1-or-later
#include "CCrypt.h"

#include <crypt.h>
#include <errno.h>
#include <glib.h>
#include <stdlib.h>
#include <string.h>

_Static_assert(CCRYPT_OUTPUT_SIZE == CRYPT_OUTPUT_SIZE, "CCRYPT_OUTPUT_SIZE must be libxcrypt's CRYPT_OUTPUT_SIZE");

/* crypt_rn's work area is 32 KB: on the heap, not on a thread's stack, and
   wiped afterwards, since it held the passcode. */
static char *hash_with(const char *passcode, const char *setting, struct crypt_data *work) {
    return crypt_rn(passcode, setting, work, (int)sizeof *work);
}

int ccrypt_hash_yescrypt(const char *passcode, unsigned long cost, char *out, size_t out_size) {
    if (cost < 1 || cost > 11) return EINVAL;
    if (out_size < CRYPT_OUTPUT_SIZE) return ERANGE;
    char setting[CRYPT_GENSALT_OUTPUT_SIZE];
    /* No random bytes given: libxcrypt takes them from getrandom(2). */
    if (!crypt_gensalt_rn("$y$", cost, NULL, 0, setting, (int)sizeof setting)) return errno ? errno : EINVAL;
    struct crypt_data *work = calloc(1, sizeof *work);
    if (!work) return ENOMEM;
    int result = 0;
    const char *hashed = hash_with(passcode, setting, work);
    if (hashed) {
        memcpy(out, hashed, strlen(hashed) + 1);
    } else {
        result = errno ? errno : EINVAL;
    }
    explicit_bzero(work, sizeof *work);
    free(work);
    return result;
}

int ccrypt_matches(const char *passcode, const char *stored) {
    struct crypt_data *work = calloc(1, sizeof *work);
    if (!work) {
        errno = ENOMEM;
        return -1;
    }
    int result = -1;
    const char *hashed = hash_with(passcode, stored, work);
    if (hashed) {
        size_t length = strlen(stored);
        /* Same length is public (it follows from the setting); the bytes are compared in constant time. */
        unsigned char difference = strlen(hashed) != length;
        for (size_t index = 0; index < length && hashed[index] != '\0'; index++) {
            difference |= (unsigned char)(hashed[index] ^ stored[index]);
        }
        result = difference == 0;
    }
    explicit_bzero(work, sizeof *work);
    free(work);
    return result;
}

/* RFC 8018 section 5.2, F(P, S, c, i): U1 = HMAC(P, S || INT(i)), Uj = HMAC(P, Uj-1),
   T = U1 ^ … ^ Uc. The keyed HMAC is made once and copied per round. */
static void pbkdf2_block(GHmac *keyed, const uint8_t *salt, size_t salt_length, uint32_t rounds, uint32_t index,
                         uint8_t block[32]) {
    uint8_t counter[4] = {index >> 24, index >> 16, index >> 8, index};
    uint8_t round[32];
    gsize length = sizeof round;
    GHmac *hmac = g_hmac_copy(keyed);
    g_hmac_update(hmac, salt, salt_length);
    g_hmac_update(hmac, counter, sizeof counter);
    g_hmac_get_digest(hmac, round, &length);
    g_hmac_unref(hmac);
    memcpy(block, round, sizeof round);
    for (uint32_t count = 1; count < rounds; count++) {
        hmac = g_hmac_copy(keyed);
        g_hmac_update(hmac, round, sizeof round);
        length = sizeof round;
        g_hmac_get_digest(hmac, round, &length);
        g_hmac_unref(hmac);
        for (size_t byte = 0; byte < sizeof round; byte++) block[byte] ^= round[byte];
    }
    explicit_bzero(round, sizeof round);
}

int ccrypt_pbkdf2_sha256(const uint8_t *password, size_t password_length, const uint8_t *salt,
                         size_t salt_length, uint32_t rounds, uint8_t *key, size_t key_length) {
    if (rounds == 0) return EINVAL;
    GHmac *keyed = g_hmac_new(G_CHECKSUM_SHA256, password, password_length);
    uint8_t block[32];
    for (size_t done = 0, index = 1; done < key_length; done += sizeof block, index++) {
        pbkdf2_block(keyed, salt, salt_length, rounds, (uint32_t)index, block);
        size_t take = key_length - done < sizeof block ? key_length - done : sizeof block;
        memcpy(key + done, block, take);
    }
    explicit_bzero(block, sizeof block);
    g_hmac_unref(keyed);
    return 0;
}
