package safetext

import "testing"

func TestEscapes(t *testing.T) {
	for _, c := range []struct {
		name string
		f    func(string) string
		in   string
		want string
	}{
		{"markdown html", Markdown, "<script>", "&lt;script&gt;"},
		{"markdown cell", Markdown, "a|b\nc", `a\|b c`},
		{"markdown link", Markdown, "[x](javascript:)", `\[x\](javascript:)`},
		{"markdown mention", Markdown, "@org/team", "@\u200dorg/team"},
		{"markdown www", Markdown, "see www.example.com", "see www\u200d.example.com"},
		{"markdown final www", Markdown, "WWW", "WWW\u200d"},
		{"html quote", HTML, `"it's"`, "&quot;it&#39;s&quot;"},
		{"html bidi", HTML, "a\u202eb", "a\ufffdb"},
		{"terminal ansi", Terminal, "\x1b[31mred", `\u001b[31mred`},
		{"terminal clean", Terminal, "plain", "plain"},
		{"mermaid quote", MermaidLabel, "a\"b`c", "a_b_c"},
		{"ellipsize", func(s string) string { return Ellipsize(s, 4) }, "abcdefg", "abc…"},
	} {
		if got := c.f(c.in); got != c.want {
			t.Errorf("%s: %q → %q, want %q", c.name, c.in, got, c.want)
		}
	}
}
