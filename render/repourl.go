package render

import (
	"maps"
	"net/url"
	"strings"
)

// repoMatcher says whether a git URL names this repository. URLs compare
// by host and path, whatever the scheme or user (https://github.com/o/r,
// ssh://git@github.com/o/r.git and git@github.com:o/r are one repository).
type repoMatcher map[string]bool

func newRepoMatcher(urls []string) repoMatcher {
	m := repoMatcher{}
	for _, u := range urls {
		if n := normalizeRepoURL(u); n != "" {
			m[n] = true
		}
	}
	return m
}

func (m repoMatcher) matches(u string) bool { return m[normalizeRepoURL(u)] }

// normalizeRepoURL reduces a git URL to lower-case host plus path, without
// a .git suffix or trailing slash; "" when it is not a URL.
func normalizeRepoURL(raw string) string {
	s := strings.TrimSpace(raw)
	if s == "" {
		return ""
	}
	s = strings.TrimPrefix(s, "git::")
	var host, path string
	if strings.Contains(s, "://") {
		u, err := url.Parse(s)
		if err != nil || u.Host == "" {
			return ""
		}
		host, path = u.Hostname(), u.Path
	} else if at := strings.Index(s, "@"); at >= 0 && strings.Contains(s[at:], ":") {
		// scp-like: git@github.com:owner/repo.git
		rest := s[at+1:]
		c := strings.Index(rest, ":")
		host, path = rest[:c], rest[c+1:]
	} else {
		return ""
	}
	path = strings.Trim(path, "/")
	path = strings.TrimSuffix(path, ".git")
	if host == "" || path == "" {
		return ""
	}
	return strings.ToLower(host) + "/" + path
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
