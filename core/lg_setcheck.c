/* lg_setcheck.c: what a read-back check printed, compared with the config's labels
 * (lg_setcheck.h). */
#include "lg_setcheck.h"

#include <jansson.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "lg_util.h"

#define S_KEY_MAX 128
#define S_VAL_MAX 256

static int s_key_char(char ch)
{
    return (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') || (ch >= '0' && ch <= '9') ||
           ch == '_' || ch == '-' || ch == '.' || ch == ':';
}

/* One line (no newline) into key and val: 1 when it is a setting, 0 when it is blank or a
 * comment, -1 when it is neither. */
static int s_line(const char *s, size_t n, char key[S_KEY_MAX], char val[S_VAL_MAX])
{
    while (n && (s[0] == ' ' || s[0] == '\t'))
        s++, n--;
    while (n && (s[n - 1] == ' ' || s[n - 1] == '\t' || s[n - 1] == '\r'))
        n--;
    if (!n || s[0] == '#')
        return 0;
    size_t k = 0;
    while (k < n && s_key_char(s[k]))
        k++;
    if (!k || k >= S_KEY_MAX || k == n)
        return -1;
    size_t v = k; /* KEY=VALUE, KEY VALUE, KEY = VALUE */
    while (v < n && (s[v] == ' ' || s[v] == '\t'))
        v++;
    if (v < n && s[v] == '=') {
        v++;
        while (v < n && (s[v] == ' ' || s[v] == '\t'))
            v++;
    } else if (v == k) {
        return -1;
    }
    if (v >= n || n - v >= S_VAL_MAX)
        return -1;
    memcpy(key, s, k);
    key[k] = 0;
    memcpy(val, s + v, n - v);
    val[n - v] = 0;
    return 1;
}

/* The settings of out into read (an object), the first line that is none into why. */
static int s_parse(const char *out, size_t len, json_t *read, char *why, size_t whylen)
{
    size_t line = 0;
    for (size_t i = 0; i < len;) {
        const char *nl = memchr(out + i, '\n', len - i);
        size_t n = nl ? (size_t)(nl - (out + i)) : len - i;
        char key[S_KEY_MAX], val[S_VAL_MAX];
        line++;
        int rc = s_line(out + i, n, key, val);
        if (rc < 0) {
            snprintf(why, whylen, "line %zu is not KEY=VALUE or KEY VALUE", line);
            return -1;
        }
        if (rc > 0 && json_object_size(read) < LG_SETCHECK_MAX &&
            json_object_set_new(read, key, json_string(val)) != 0)
            return -2;
        i += n + (nl ? 1 : 0);
    }
    return 0;
}

/* Each label read against its value: 0, 1 (mismatch) or -1 (no label read), why said. */
static int s_against(json_t *labels, json_t *read, char *why, size_t whylen)
{
    const char *k;
    json_t *v;
    size_t matched = 0;
    json_object_foreach(labels, k, v)
    {
        json_t *got = json_object_get(read, k);
        if (!got || !json_is_string(v))
            continue;
        if (strcasecmp(json_string_value(v), json_string_value(got)) != 0) {
            snprintf(why, whylen, "%s reads \"%s\" where the config's label says \"%s\"", k,
                     json_string_value(got), json_string_value(v));
            return 1;
        }
        matched++;
    }
    if (matched)
        return 0;
    char keys[512] = "";
    size_t o = 0;
    json_object_foreach(read, k, v)
    {
        int w = snprintf(keys + o, sizeof keys - o, "%s%s", o ? ", " : "", k);
        if (w < 0 || (size_t)w >= sizeof keys - o)
            break;
        o += (size_t)w;
    }
    if (o)
        snprintf(why, whylen, "it read %s, none of them a label of the config", keys);
    else
        snprintf(why, whylen, "it printed no setting");
    return -1;
}

int lg_setcheck_compare(const char *out, size_t len, const char *labels_json, char **read_json,
                        char *why, size_t whylen)
{
    *read_json = NULL;
    if (whylen)
        why[0] = 0;
    json_error_t je;
    json_t *labels = json_loads(labels_json ? labels_json : "{}", 0, &je);
    if (!json_is_object(labels)) {
        json_decref(labels);
        snprintf(why, whylen, "the config's labels are not a JSON object");
        return -2;
    }
    json_t *read = json_object();
    int rc = read ? s_parse(out ? out : "", out ? len : 0, read, why, whylen) : -2;
    if (rc == 0)
        rc = s_against(labels, read, why, whylen);
    if (rc != -2 && json_object_size(read)) {
        *read_json = json_dumps(read, JSON_COMPACT | JSON_PRESERVE_ORDER);
        if (!*read_json)
            rc = -2;
    }
    json_decref(read);
    json_decref(labels);
    return rc;
}
