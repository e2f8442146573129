/* The answers of the proxy. A refusal must say why and what is allowed, because a sealed box
 * only ever sees a failed connection and would otherwise take it for a flaky network. */
#include "config.h"

#include <stdio.h>
#include <string.h>

#include "egress/policy/verdict.h"
#include "src/base/util.h"

static const struct cp_egress_reason_info infos[CP_EGRESS_REASON_COUNT] = {
    [CP_EGRESS_ALLOWED] = {200, "Connection established", NULL, "allowed", "tunnel opened"},
    [CP_EGRESS_MALFORMED] = {400, "Bad Request", "http_request_error", "malformed",
                             "the request is not a well-formed HTTP/1.1 CONNECT"},
    [CP_EGRESS_HEAD_TOO_BIG] = {431, "Request Header Fields Too Large", "http_request_error",
                                "head-too-big", "the request head is too large"},
    [CP_EGRESS_NOT_CONNECT] = {403, "Forbidden", "http_request_denied", "not-connect",
                               "only CONNECT host:443 is proxied; plain HTTP is refused"},
    [CP_EGRESS_ABSOLUTE_FORM] = {403, "Forbidden", "http_request_denied", "absolute-form",
                                 "only CONNECT host:443 is proxied; plain HTTP is refused"},
    [CP_EGRESS_IP_LITERAL] = {403, "Forbidden", "destination_ip_prohibited", "ip-literal",
                              "an IP address is never on the allow-list; use a host name"},
    [CP_EGRESS_PORT] = {403, "Forbidden", "http_request_denied", "port",
                        "only port 443 is allowed"},
    [CP_EGRESS_BAD_HOST] = {403, "Forbidden", "http_request_denied", "bad-host",
                            "the target is not a valid host name"},
    [CP_EGRESS_BODY] = {400, "Bad Request", "http_request_error", "body",
                        "a CONNECT request carries no body"},
    [CP_EGRESS_EARLY_DATA] = {403, "Forbidden", "http_request_denied", "early-data",
                              "bytes followed the request before the tunnel was granted"},
    [CP_EGRESS_NOT_LISTED] = {403, "Forbidden", "http_request_denied", "not-listed",
                              "the host is not on the allow-list"},
    [CP_EGRESS_SPECIAL_ADDRESS] = {403, "Forbidden", "destination_ip_prohibited", "special-address",
                                   "the host resolves to a private, loopback or other "
                                   "non-public address"},
    [CP_EGRESS_AUTH] = {407, "Proxy Authentication Required", "http_request_denied", "auth",
                        "the box's proxy credential is missing or wrong"},
    [CP_EGRESS_DNS] = {502, "Bad Gateway", "dns_error", "dns", "the host name did not resolve"},
    [CP_EGRESS_UNREACHABLE] = {502, "Bad Gateway", "connection_refused", "unreachable",
                               "no address of the host accepted the connection"},
    [CP_EGRESS_HEAD_TIMEOUT] = {408, "Request Timeout", "http_request_error", "head-timeout",
                                "the request head did not arrive in time"},
    [CP_EGRESS_DIAL_TIMEOUT] = {504, "Gateway Timeout", "connection_timeout", "dial-timeout",
                                "resolving or connecting to the host took too long"},
    [CP_EGRESS_BUSY] = {503, "Service Unavailable", "connection_limit_reached", "busy",
                        "the proxy holds its maximum number of connections"},
    [CP_EGRESS_NOT_TLS] = {403, "Forbidden", "http_request_denied", "not-tls",
                           "a tunnel must begin with a TLS ClientHello; other protocols are "
                           "refused"},
    [CP_EGRESS_NO_SNI] = {403, "Forbidden", "tls_protocol_error", "no-sni",
                          "the TLS ClientHello names no server (SNI)"},
    [CP_EGRESS_SNI_MISMATCH] = {403, "Forbidden", "tls_protocol_error", "sni-mismatch",
                                "the TLS server name differs from the CONNECT host"},
    [CP_EGRESS_ECH] = {403, "Forbidden", "tls_protocol_error", "ech",
                       "an encrypted ClientHello hides the server name"},
    [CP_EGRESS_HELLO_TOO_BIG] = {403, "Forbidden", "tls_protocol_error", "hello-too-big",
                                 "the TLS ClientHello is too large"},
    [CP_EGRESS_HELLO_TIMEOUT] = {408, "Request Timeout", "tls_protocol_error", "hello-timeout",
                                 "the TLS ClientHello did not arrive in time"},
    [CP_EGRESS_UPSTREAM] = {502, "Bad Gateway", "proxy_internal_error", "upstream",
                            "the upstream proxy did not open the tunnel"},
    [CP_EGRESS_METHOD] = {403, "Forbidden", "http_request_denied", "method",
                          "the host is read-only: only fetching requests pass"},
    [CP_EGRESS_REQUEST] = {400, "Bad Request", "http_request_error", "request",
                           "the request's head is ambiguous or not allowed inside a tunnel"},
    [CP_EGRESS_HIDDEN_REQUEST] = {403, "Forbidden", "http_request_denied", "hidden-request",
                                  "a host that does not read this body would take it for a "
                                  "request of its own, one the sidecar never judged"},
    [CP_EGRESS_HOST_HEADER] = {403, "Forbidden", "http_request_denied", "host-header",
                               "the Host header names another host than the tunnel's"},
    [CP_EGRESS_UPSTREAM_CERT] = {502, "Bad Gateway", "tls_certificate_error", "upstream-cert",
                                 "the host's certificate did not verify"},
    [CP_EGRESS_UPSTREAM_TLS] = {502, "Bad Gateway", "tls_protocol_error", "upstream-tls",
                                "the TLS handshake with the host failed"},
    [CP_EGRESS_UPSTREAM_HTTP] = {502, "Bad Gateway", "http_response_incomplete", "upstream-http",
                                 "the host's answer is not HTTP/1.1 the proxy can frame"},
    [CP_EGRESS_CLIENT_TLS] = {403, "Forbidden", "tls_protocol_error", "client-tls",
                              "the box's TLS handshake with the sidecar failed; does the box "
                              "trust the egress CA?"},
    [CP_EGRESS_SIGN_IN_REFUSED] = {401, "Unauthorized", "http_request_denied", "sign-in-refused",
                                   "the registry refused the sign-in the sidecar added; renew it "
                                   "where it came from"},
    [CP_EGRESS_SIGN_IN_UNCHECKED] = {502, "Bad Gateway", "http_response_content_coding",
                                     "sign-in-unchecked",
                                     "the host's answer came compressed although the sidecar asked "
                                     "for it plain, so the sidecar cannot make sure it does not "
                                     "show the box a sign-in"},
    [CP_EGRESS_PLACEHOLDER] = {403, "Forbidden", "http_request_denied", "placeholder",
                               "a sign-in's placeholder goes only in its own header of requests "
                               "to its host and path; anywhere else it is refused"},
    [CP_EGRESS_SIGN_INS] = {400, "Bad Request", "proxy_internal_error", "sign-ins",
                            "the sign-in message was refused whole; the sign-ins before it stay"},
    [CP_EGRESS_SIGN_INS_TAKEN] = {200, "OK", "proxy_internal_error", "sign-ins-taken",
                                  "the sign-in message replaced the table"},
};

const struct cp_egress_reason_info *cp_egress_reason_info(enum cp_egress_reason reason)
{
    if ((unsigned)reason >= CP_EGRESS_REASON_COUNT)
        reason = CP_EGRESS_MALFORMED;
    return &infos[reason];
}

int cp_egress_reason_from_slug(const char *slug)
{
    for (int i = 0; i < CP_EGRESS_REASON_COUNT; i++)
        if (strcmp(infos[i].slug, slug) == 0)
            return i;
    return -1;
}

/* Appends with snprintf semantics but never moves past size; returns the new length. */
static size_t append(char *out, size_t size, size_t len, const char *text)
{
    if (len + 1 >= size)
        return len;
    int n = snprintf(out + len, size - len, "%s", text);
    if (n < 0)
        return len;
    return (size_t)n >= size - len ? size - 1 : len + (size_t)n;
}

/* The allow-list as one line, cut with "..." so the whole response stays within its bound. */
static void list_line(const char *const *allowed, size_t n, char *out, size_t size)
{
    size_t len = 0;
    out[0] = '\0';
    if (n == 0)
        len = append(out, size, len, "(nothing)");
    for (size_t i = 0; i < n; i++) {
        if (len + strlen(allowed[i]) + 8 >= size) {
            append(out, size, len, " ...");
            return;
        }
        len = append(out, size, len, i ? ", " : "");
        len = append(out, size, len, allowed[i]);
    }
}

size_t cp_egress_response(enum cp_egress_reason reason, const char *host_port,
                          const char *const *allowed, size_t nallowed, char *out, size_t size)
{
    const struct cp_egress_reason_info *info = cp_egress_reason_info(reason);
    char list[2048], body[2560];
    list_line(allowed, nallowed, list, sizeof(list));
    int blen = snprintf(body, sizeof(body),
                        "conch-place egress proxy refused %s: %s.\nAllowed hosts (port 443): "
                        "%s\n",
                        host_port, info->sentence, list);
    if (blen < 0 || (size_t)blen >= sizeof(body))
        blen = (int)strlen(body);
    const char *auth =
        reason == CP_EGRESS_AUTH ? "Proxy-Authenticate: Basic realm=\"conch-place\"\r\n" : "";
    int n = snprintf(out, size,
                     "HTTP/1.1 %d %s\r\nProxy-Status: conch-place; error=%s; details=\"%s\"\r\n"
                     "%sContent-Type: text/plain\r\nContent-Length: %d\r\nConnection: close\r\n"
                     "\r\n%s",
                     info->status, info->status_text, info->proxy_status_error, info->sentence,
                     auth, blen, body);
    if (n < 0)
        return 0;
    return (size_t)n >= size ? size - 1 : (size_t)n;
}
