package fetch

import (
	"strings"
)

// AuthEnv is the environment variable that holds credentials for chart
// repositories and registries: one "URL-PREFIX USERNAME PASSWORD" per
// line. Credentials come from the environment (a CI secret), never from
// the repository: a hostile .capreport.yaml could otherwise name any
// variable and send it to a host of its choosing.
const AuthEnv = "CAPREPORT_FETCH_AUTH"

type credential struct {
	prefix, username, password string
}

// parseAuth reads AuthEnv's value; malformed lines are ignored.
func parseAuth(v string) []credential {
	var out []credential
	for _, line := range strings.Split(v, "\n") {
		f := strings.Fields(line)
		if len(f) != 3 {
			continue
		}
		out = append(out, credential{prefix: strings.TrimSuffix(f[0], "/"), username: f[1], password: f[2]})
	}
	return out
}

// matchCredential finds the longest prefix that u starts with at a path
// boundary; an oci:// prefix matches the https and http URLs of its host.
func matchCredential(cs []credential, u string) (credential, bool) {
	var best credential
	found := false
	for _, c := range cs {
		for _, p := range prefixForms(c.prefix) {
			if (u == p || strings.HasPrefix(u, p+"/") || strings.HasPrefix(u, p+"?")) && len(p) > len(best.prefix) {
				best, found = credential{prefix: p, username: c.username, password: c.password}, true
			}
		}
	}
	return best, found
}

func prefixForms(p string) []string {
	if rest, ok := strings.CutPrefix(p, "oci://"); ok {
		host, _, _ := strings.Cut(rest, "/")
		return []string{"https://" + host, "http://" + host}
	}
	return []string{p}
}

// ociCredential returns the credential for an oci:// reference.
func ociCredential(cs []credential, ref string) (credential, bool) {
	for _, c := range cs {
		if strings.HasPrefix(c.prefix, "oci://") && (ref == c.prefix || strings.HasPrefix(ref, c.prefix+"/")) {
			return c, true
		}
	}
	return credential{}, false
}
