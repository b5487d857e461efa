// Package repourl says whether a git URL names the repository being read:
// a Flux GitRepository's spec.url or an Argo CD source's repoURL, compared
// as Argo CD compares them (its NormalizeGitURL, ported here with its own
// tables as tests).
package repourl

import (
	"fmt"
	"maps"
	"net/url"
	"regexp"
	"slices"
	"strings"
)

// Argo CD compares repositories by NormalizeGitURL (argoproj/argo-cd
// util/git/git.go, ported below as ArgoNormalizeGitURL): lower-cased,
// trimmed, an SSH URL without "ssh://" (scp-like "git@host:org/repo", or
// "git@host/org/repo" with no colon at all) rewritten to ssh:// with its
// first colon made a slash, one ".git" suffix dropped, then
// net/url.Parse's String without "ssh://". So git@github.com:org/repo and
// git@github.com/org/repo are one repository to Argo CD, and
// https://github.com/org/repo another spelling that its SameURL does not
// equate (it keys credentials by scheme). capreport asks a wider question
// (is this the checkout being read?), so it compares the host and path of
// the normalized form whatever the scheme, user or port: a repository
// cloned over HTTPS is the same content as over SSH. Flux does not compare
// URLs at all (a Kustomization names its GitRepository); its spec.url is
// compared the same way.

// sshURLPattern is Argo CD's sshURLRegex: an optional ssh://, a user, an @
// and no further @.
var sshURLPattern = regexp.MustCompile("^(ssh://)?([^/:]*?)@[^@]+$")

// ArgoIsSSHURL is Argo CD's IsSSHURL: whether the URL is SSH, and its user.
func ArgoIsSSHURL(u string) (bool, string) {
	if m := sshURLPattern.FindStringSubmatch(u); len(m) > 2 {
		return true, m[2]
	}
	return false, ""
}

// ArgoNormalizeGitURL is Argo CD's NormalizeGitURL; "" when net/url cannot
// parse the result.
func ArgoNormalizeGitURL(repo string) string {
	repo = strings.ToLower(strings.TrimSpace(repo))
	if ssh, _ := ArgoIsSSHURL(repo); ssh && !strings.HasPrefix(repo, "ssh://") {
		repo = "ssh://" + strings.Replace(repo, ":", "/", 1)
	}
	repo = strings.TrimSuffix(repo, ".git")
	u, err := url.Parse(repo)
	if err != nil {
		return ""
	}
	return strings.TrimPrefix(u.String(), "ssh://")
}

// ArgoSameURL is Argo CD's SameURL: both normalize (or, when one does not,
// stand as written) to the same non-empty string.
func ArgoSameURL(left, right string) bool {
	l, r := ArgoNormalizeGitURL(left), ArgoNormalizeGitURL(right)
	if l == "" {
		l = left
	}
	if r == "" {
		r = right
	}
	return l != "" && r != "" && l == r
}

// Identity is the host and path of a git URL's Argo CD normal form,
// without port, user, ".git" or a trailing slash ("github.com/org/repo"):
// what capreport compares. "" when the URL names no host and path (a
// relative path, a bare name). kustomize's "git::" prefix is dropped first.
func Identity(raw string) string {
	raw = strings.TrimPrefix(strings.TrimSpace(raw), "git::")
	n := ArgoNormalizeGitURL(raw)
	if n == "" {
		return ""
	}
	if !strings.Contains(n, "://") {
		if ssh, _ := ArgoIsSSHURL(strings.ToLower(raw)); !ssh {
			return "" // a path or a bare name
		}
		n = "ssh://" + n // NormalizeGitURL leaves an SSH URL without a scheme
	}
	u, err := url.Parse(n)
	if err != nil || u.Hostname() == "" {
		return ""
	}
	p := strings.TrimSuffix(strings.Trim(u.Path, "/"), ".git")
	if p == "" {
		return ""
	}
	return u.Hostname() + "/" + p
}

// Matcher says whether a git URL names this repository, keeping the
// URL each identity came from so that a decision can say why.
type Matcher map[string]string

func NewMatcher(urls []string) Matcher {
	m := Matcher{}
	for _, u := range urls {
		if id := Identity(u); id != "" {
			if _, ok := m[id]; !ok {
				m[id] = u
			}
		}
	}
	return m
}

func (m Matcher) Matches(u string) bool {
	id := Identity(u)
	_, ok := m[id]
	return ok && id != ""
}

// decision says, in one line, why u is this repository: its Argo CD
// normal form, its identity, and the URL of this repository it shares the
// identity with; for another repository, what it was compared with.
func (m Matcher) Decision(u string) string {
	if !m.Matches(u) {
		return fmt.Sprintf("%s is another repository (%s)", u, m.Another(u))
	}
	id := Identity(u)
	return fmt.Sprintf("%s (Argo CD normal form %s, identity %s) is this repository: %s (normal form %s) has the same identity",
		u, ArgoNormalizeGitURL(u), id, m[id], ArgoNormalizeGitURL(m[id]))
}

// another says what u was compared with when it is not this repository.
func (m Matcher) Another(u string) string {
	id := Identity(u)
	what := fmt.Sprintf("Argo CD normal form %q, identity %s", ArgoNormalizeGitURL(u), id)
	if id == "" {
		what = fmt.Sprintf("Argo CD normal form %q, which names no host and path", ArgoNormalizeGitURL(u))
	}
	if len(m) == 0 {
		return what + "; this repository's URLs are unknown: no git remote, --repo-url or repository.urls"
	}
	return what + "; this repository is " + strings.Join(slices.Sorted(maps.Keys(m)), ", ")
}
