package repourl

import (
	"strings"
	"testing"
)

// The tables of argoproj/argo-cd util/git/git_test.go (TestIsSSHURL,
// TestIsSSHURLUserName, TestSameURL) at 37ee0097cf85, run against the port.

func TestArgoIsSSHURL(t *testing.T) {
	for u, want := range map[string]bool{
		"git://github.com/argoproj/test.git":     false,
		"git@GITHUB.com:argoproj/test.git":       true,
		"git@github.com:test":                    true,
		"git@github.com:test.git":                true,
		"https://github.com/argoproj/test":       false,
		"https://github.com/argoproj/test.git":   false,
		"ssh://git@GITHUB.com:argoproj/test":     true,
		"ssh://git@GITHUB.com:argoproj/test.git": true,
		"ssh://git@github.com:test.git":          true,
	} {
		if got, _ := ArgoIsSSHURL(u); got != want {
			t.Errorf("ArgoIsSSHURL(%q) = %v, want %v", u, got, want)
		}
	}
	for u, user := range map[string]string{
		"ssh://john@john-server.org:29418/project":         "john",
		"john@john-server.org:29418/project":               "john",
		"john@doe.org@john-server.org:29418/project":       "john@doe.org",
		"ssh://john@doe.org@john-server.org:29418/project": "john@doe.org",
		"john@doe.org@john-server.org:project":             "john@doe.org",
	} {
		if ok, got := ArgoIsSSHURL(u); !ok || got != user {
			t.Errorf("ArgoIsSSHURL(%q) = %v, %q; want true, %q", u, ok, got, user)
		}
	}
}

func TestArgoSameURL(t *testing.T) {
	for left, right := range map[string]string{
		"git@GITHUB.com:argoproj/test":                     "git@github.com:argoproj/test.git",
		"git@GITHUB.com:argoproj/test.git":                 "git@github.com:argoproj/test.git",
		"git@GITHUB.com:test":                              "git@github.com:test.git",
		"git@GITHUB.com:test.git":                          "git@github.com:test.git",
		"https://GITHUB.com/argoproj/test":                 "https://github.com/argoproj/test.git",
		"https://GITHUB.com/argoproj/test.git":             "https://github.com/argoproj/test.git",
		"https://github.com/FOO":                           "https://github.com/foo",
		"https://github.com/TEST":                          "https://github.com/TEST.git",
		"https://github.com/TEST.git":                      "https://github.com/TEST.git",
		"https://github.com:4443/TEST":                     "https://github.com:4443/TEST.git",
		"https://github.com:4443/TEST.git":                 "https://github.com:4443/TEST",
		"ssh://git@GITHUB.com/argoproj/test":               "git@github.com:argoproj/test.git",
		"ssh://git@GITHUB.com/argoproj/test.git":           "git@github.com:argoproj/test.git",
		"ssh://git@GITHUB.com/test.git":                    "git@github.com:test.git",
		"ssh://git@github.com/test":                        "git@github.com:test.git",
		" https://github.com/argoproj/test ":               "https://github.com/argoproj/test.git",
		"\thttps://github.com/argoproj/test\n":             "https://github.com/argoproj/test.git",
		"https://1234.visualstudio.com/myproj/_git/myrepo": "https://1234.visualstudio.com/myproj/_git/myrepo",
		"https://dev.azure.com/1234/myproj/_git/myrepo":    "https://dev.azure.com/1234/myproj/_git/myrepo",
		// Not in upstream's table: the colon-less scp form of issue 29,
		// which NormalizeGitURL takes as SSH all the same.
		"git@github.com/argoproj/test": "git@github.com:argoproj/test.git",
	} {
		if !ArgoSameURL(left, right) {
			t.Errorf("ArgoSameURL(%q, %q) = false (normal forms %q, %q)", left, right, ArgoNormalizeGitURL(left), ArgoNormalizeGitURL(right))
		}
	}
	if ArgoSameURL("https://github.com/argoproj/test", "git@github.com:argoproj/test") {
		t.Error("Argo CD keeps HTTPS and SSH spellings apart; the port must too")
	}
}

// Identity is the host and path of the Argo CD normal form, whatever
// the scheme, user or port: every spelling of one repository is one.
func TestRepoIdentity(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"https://github.com/org/repo", "github.com/org/repo"},
		{"https://github.com/org/repo.git", "github.com/org/repo"},
		{"https://github.com/org/repo/", "github.com/org/repo"},
		{"https://GitHub.com/Org/Repo", "github.com/org/repo"},
		{"https://user:token@github.com/org/repo", "github.com/org/repo"},
		{"http://gitea.local:3000/org/repo.git", "gitea.local/org/repo"},
		{"git@github.com:org/repo.git", "github.com/org/repo"},
		{"git@github.com:org/repo", "github.com/org/repo"},
		{"git@github.com/org/repo", "github.com/org/repo"}, // no colon: issue 29's app-of-apps trees
		{"git@github.com/org/repo.git", "github.com/org/repo"},
		{"ssh://git@github.com/org/repo", "github.com/org/repo"},
		{"ssh://git@github.com:22/org/repo.git", "github.com/org/repo"},
		{"ssh://git@ssh.dev.azure.com/v3/org/proj/repo", "ssh.dev.azure.com/v3/org/proj/repo"},
		{"git::https://github.com/org/repo", "github.com/org/repo"},
		{"  https://github.com/org/repo\n", "github.com/org/repo"},
		{"https://dev.azure.com/1234/myproj/_git/myrepo", "dev.azure.com/1234/myproj/_git/myrepo"},
		{"", ""},
		{"repo", ""},
		{"./local/path", ""},
		{"https://github.com", ""},
		{"ssh://git@GITHUB.com:argoproj/test", ""}, // Argo CD cannot parse it either
	} {
		if got := Identity(c.in); got != c.want {
			t.Errorf("Identity(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}

func TestRepoMatcherDecision(t *testing.T) {
	m := NewMatcher([]string{"https://github.com/org/fleet.git"})
	if !m.Matches("git@github.com/org/fleet") || !m.Matches("ssh://git@github.com/ORG/fleet") {
		t.Error("SSH spellings of the remote must match")
	}
	if m.Matches("https://github.com/org/platform") || m.Matches("") || m.Matches("fleet") {
		t.Error("another repository, or no URL, matched")
	}
	for u, want := range map[string]string{
		"git@github.com/org/fleet": "git@github.com/org/fleet (Argo CD normal form git@github.com/org/fleet, identity github.com/org/fleet) is this repository: " +
			"https://github.com/org/fleet.git (normal form https://github.com/org/fleet) has the same identity",
		"https://github.com/org/platform": `https://github.com/org/platform is another repository (Argo CD normal form "https://github.com/org/platform", identity github.com/org/platform; this repository is github.com/org/fleet)`,
	} {
		if got := m.Decision(u); got != want {
			t.Errorf("decision(%q)\n got  %s\n want %s", u, got, want)
		}
	}
}

// FuzzRepoIdentity: any text, a repoURL or GitRepository url as a hostile
// repository may write it, gives an identity that is empty or a host and
// path (lower-case when the text is plain ASCII), and never panics.
func FuzzRepoIdentity(f *testing.F) {
	for _, s := range []string{"https://github.com/org/repo.git", "git@github.com:org/repo", "git@github.com/org/repo",
		"ssh://git@host:22/a/b", "git::https://x/y", "john@doe.org@host:29418/p", "", "::", "a@b@c", "https://%zz"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		id := Identity(s)
		ArgoSameURL(s, s)
		if id == "" {
			return
		}
		if !strings.Contains(s, "%") && isASCII(s) && id != strings.ToLower(id) {
			t.Fatalf("identity %q of %q is not lower-case", id, s)
		}
		host, p, ok := strings.Cut(id, "/")
		if !ok || host == "" || p == "" {
			t.Fatalf("identity %q of %q is not host/path", id, s)
		}
	})
}

func isASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= 0x80 {
			return false
		}
	}
	return true
}
