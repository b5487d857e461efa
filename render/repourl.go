package render

import (
	"fmt"
	"maps"
	"net/url"
	"regexp"
	"slices"
	"strings"
)

// Repository identity: whether a Flux GitRepository's spec.url or an Argo
// CD source's repoURL names the repository being read.
//
// Argo CD compares repositories by NormalizeGitURL (argoproj/argo-cd
// util/git/git.go, ported below as argoNormalizeGitURL): lower-cased,
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

// argoIsSSHURL is Argo CD's IsSSHURL: whether the URL is SSH, and its user.
func argoIsSSHURL(u string) (bool, string) {
	if m := sshURLPattern.FindStringSubmatch(u); len(m) > 2 {
		return true, m[2]
	}
	return false, ""
}

// argoNormalizeGitURL is Argo CD's NormalizeGitURL; "" when net/url cannot
// parse the result.
func argoNormalizeGitURL(repo string) string {
	repo = strings.ToLower(strings.TrimSpace(repo))
	if ssh, _ := argoIsSSHURL(repo); ssh && !strings.HasPrefix(repo, "ssh://") {
		repo = "ssh://" + strings.Replace(repo, ":", "/", 1)
	}
	repo = strings.TrimSuffix(repo, ".git")
	u, err := url.Parse(repo)
	if err != nil {
		return ""
	}
	return strings.TrimPrefix(u.String(), "ssh://")
}

// argoSameURL is Argo CD's SameURL: both normalize (or, when one does not,
// stand as written) to the same non-empty string.
func argoSameURL(left, right string) bool {
	l, r := argoNormalizeGitURL(left), argoNormalizeGitURL(right)
	if l == "" {
		l = left
	}
	if r == "" {
		r = right
	}
	return l != "" && r != "" && l == r
}

// repoIdentity is the host and path of a git URL's Argo CD normal form,
// without port, user, ".git" or a trailing slash ("github.com/org/repo"):
// what capreport compares. "" when the URL names no host and path (a
// relative path, a bare name). kustomize's "git::" prefix is dropped first.
func repoIdentity(raw string) string {
	raw = strings.TrimPrefix(strings.TrimSpace(raw), "git::")
	n := argoNormalizeGitURL(raw)
	if n == "" {
		return ""
	}
	if !strings.Contains(n, "://") {
		if ssh, _ := argoIsSSHURL(strings.ToLower(raw)); !ssh {
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

// repoMatcher says whether a git URL names this repository, keeping the
// URL each identity came from so that a decision can say why.
type repoMatcher map[string]string

func newRepoMatcher(urls []string) repoMatcher {
	m := repoMatcher{}
	for _, u := range urls {
		if id := repoIdentity(u); id != "" {
			if _, ok := m[id]; !ok {
				m[id] = u
			}
		}
	}
	return m
}

func (m repoMatcher) matches(u string) bool {
	id := repoIdentity(u)
	_, ok := m[id]
	return ok && id != ""
}

// decision says, in one line, why u is this repository: its Argo CD
// normal form, its identity, and the URL of this repository it shares the
// identity with; for another repository, what it was compared with.
func (m repoMatcher) decision(u string) string {
	if !m.matches(u) {
		return fmt.Sprintf("%s is another repository (%s)", u, m.another(u))
	}
	id := repoIdentity(u)
	return fmt.Sprintf("%s (Argo CD normal form %s, identity %s) is this repository: %s (normal form %s) has the same identity",
		u, argoNormalizeGitURL(u), id, m[id], argoNormalizeGitURL(m[id]))
}

// another says what u was compared with when it is not this repository.
func (m repoMatcher) another(u string) string {
	id := repoIdentity(u)
	what := fmt.Sprintf("Argo CD normal form %q, identity %s", argoNormalizeGitURL(u), id)
	if id == "" {
		what = fmt.Sprintf("Argo CD normal form %q, which names no host and path", argoNormalizeGitURL(u))
	}
	if len(m) == 0 {
		return what + "; this repository's URLs are unknown: no git remote, --repo-url or repository.urls"
	}
	return what + "; this repository is " + strings.Join(slices.Sorted(maps.Keys(m)), ", ")
}

// notThisRepo is the advice after a source that is not this repository.
func notThisRepo(flag string) string {
	return "if it is this one, list its URL under repository.urls in .capreport.yaml or pass --repo-url; if a clone of it is beside this one, map it with --source " + flag + "=PATH"
}

// clusterScopedKinds are the built-in kinds without a namespace, which
// neither a Helm release namespace nor an Argo CD destination applies to.
var clusterScopedKinds = map[string]bool{
	"Namespace": true, "Node": true, "PersistentVolume": true, "ClusterRole": true, "ClusterRoleBinding": true,
	"CustomResourceDefinition": true, "StorageClass": true, "PriorityClass": true, "RuntimeClass": true,
	"IngressClass": true, "CSIDriver": true, "CSINode": true, "VolumeAttachment": true, "APIService": true,
	"MutatingWebhookConfiguration": true, "ValidatingWebhookConfiguration": true,
	"ValidatingAdmissionPolicy": true, "ValidatingAdmissionPolicyBinding": true,
	"PodSecurityPolicy": true, "CertificateSigningRequest": true, "FlowSchema": true,
	"PriorityLevelConfiguration": true, "ClusterIssuer": true, "ClusterTriggerAuthentication": true,
	"ClusterPolicy": true, "ComponentStatus": true,
}

func isClusterScoped(kind string) bool { return clusterScopedKinds[kind] }

// setDefaultNamespace gives a namespaced object without a namespace the
// one it lands in (the release namespace for Helm, the destination for
// Argo CD), in the object and its manifest alike.
func setDefaultNamespace(o *Object, ns string) {
	if ns == "" || o.Namespace != "" || isClusterScoped(o.Kind) {
		return
	}
	o.Namespace = ns
	ownMetadata(o)["namespace"] = ns
}

// ownMetadata gives o a document and metadata of its own to write into,
// copies of its own (a cached render's documents are shared by the builds
// that load it, sharedBody), and returns the metadata.
func ownMetadata(o *Object) map[string]any {
	o.Doc = maps.Clone(o.Doc)
	if o.Doc == nil {
		o.Doc = map[string]any{}
	}
	md, _ := o.Doc["metadata"].(map[string]any)
	md = maps.Clone(md)
	if md == nil {
		md = map[string]any{}
	}
	o.Doc["metadata"] = md
	return md
}
