package helmkeys

import (
	"crypto/ed25519"
	"crypto/rand"
	"crypto/rsa"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/base64"
	"encoding/pem"
	"math/big"
	"strings"
	"testing"
	"time"

	"helm.sh/helm/v3/pkg/chart"
	"helm.sh/helm/v3/pkg/chartutil"
	"helm.sh/helm/v3/pkg/engine"

	"github.com/capreport/capreport/check"
)

const ed = `(genPrivateKey "ed25519")`

// TestCheapKeysTemplate: each form the rewrite knows, where it is found,
// and what it leaves alone (want "" means unchanged).
func TestCheapKeysTemplate(t *testing.T) {
	for _, tc := range []struct{ name, in, want string }{
		{"private key rsa", `{{ genPrivateKey "rsa" }}`, `{{ genPrivateKey "ed25519" }}`},
		{"private key dsa", `{{ genPrivateKey "dsa" }}`, `{{ genPrivateKey "ed25519" }}`},
		{"private key empty is rsa", `{{ genPrivateKey "" }}`, `{{ genPrivateKey "ed25519" }}`},
		{"private key raw string", "{{ genPrivateKey `rsa` | b64enc }}", `{{ genPrivateKey "ed25519" | b64enc }}`},
		{"private key in coalesce", `{{- $k := coalesce .Values.k (genPrivateKey "rsa") }}`, `{{- $k := coalesce .Values.k (genPrivateKey "ed25519") }}`},
		{"genCA declared", `{{- $ca := genCA "x" 365 }}`, `{{- $ca := genCAWithKey "x" 365 ` + ed + ` }}`},
		{"genCA assigned", `{{- $ca := 0 }}{{ $ca = genCA "x" 365 }}`, `{{- $ca := 0 }}{{ $ca = genCAWithKey "x" 365 ` + ed + ` }}`},
		{"genCA parenthesized", `{{ $c := (genCA "x" 365) }}`, `{{ $c := (genCAWithKey "x" 365 ` + ed + `) }}`},
		{"genCA chained", `{{ (genCA "x" 365).Cert | b64enc }}`, `{{ (genCAWithKey "x" 365 ` + ed + `).Cert | b64enc }}`},
		{"genCA then pipe", `{{ genCA "x" 365 | toJson }}`, `{{ genCAWithKey "x" 365 ` + ed + ` | toJson }}`},
		{"genCA trim markers", `{{- genCA "x" 365 -}}`, `{{- genCAWithKey "x" 365 ` + ed + ` -}}`},
		{"genCA field days", `{{ genCA .Values.cn .Values.tls.days }}`, `{{ genCAWithKey .Values.cn .Values.tls.days ` + ed + ` }}`},
		{"genCA one-field days", `{{ genCA "x" .days }}`, `{{ genCAWithKey "x" .days ` + ed + ` }}`},
		{"genCA variable days", `{{ $d := 1 }}{{ genCA "x" $d }}`, `{{ $d := 1 }}{{ genCAWithKey "x" $d ` + ed + ` }}`},
		{"genCA variable field days", `{{ genCA "x" $.Values.days }}`, `{{ genCAWithKey "x" $.Values.days ` + ed + ` }}`},
		{"genCA number forms", `{{ genCA "x" 0x16d }}`, `{{ genCAWithKey "x" 0x16d ` + ed + ` }}`},
		{"genCA char days", `{{ genCA "x" 'm' }}`, `{{ genCAWithKey "x" 'm' ` + ed + ` }}`},
		{"genCA tpl", `{{ genCA (tpl .Values.x .) (int (tpl .Values.d .)) }}`, `{{ genCAWithKey (tpl .Values.x .) (int (tpl .Values.d .)) ` + ed + ` }}`},
		{"genCA paren with parens in literals", "{{ genCA \"x\" (len (list \")\" `(` ')' \"\\\")\")) }}", "{{ genCAWithKey \"x\" (len (list \")\" `(` ')' \"\\\")\")) " + ed + " }}"},
		{"genCA paren spaced", "{{ genCA \"x\" (  add 1 2\n ) }}", "{{ genCAWithKey \"x\" (  add 1 2\n ) " + ed + " }}"},
		{"genCA chain on paren", `{{ genCA "x" (dict "d" 1).d }}`, `{{ genCAWithKey "x" (dict "d" 1).d ` + ed + ` }}`},
		{"genCA identifier arg", `{{ genCA "x" now }}`, `{{ genCAWithKey "x" now ` + ed + ` }}`},
		{"genCA over lines", "{{ genCA\n  \"x\"\n  365\n}}", "{{ genCAWithKey\n  \"x\"\n  365 " + ed + "\n}}"},
		{"self-signed", `{{ genSelfSignedCert "a" nil nil 365 }}`, `{{ genSelfSignedCertWithKey "a" nil nil 365 ` + ed + ` }}`},
		{"self-signed lists", `{{ genSelfSignedCert "a" (list "10.0.0.1") (list .a .b) 365 }}`, `{{ genSelfSignedCertWithKey "a" (list "10.0.0.1") (list .a .b) 365 ` + ed + ` }}`},
		{"signed", `{{ $ca := genCA "x" 365 }}{{ $c := genSignedCert "a" nil (list .a .b) 365 $ca }}`,
			`{{ $ca := genCAWithKey "x" 365 ` + ed + ` }}{{ $c := genSignedCertWithKey "a" nil (list .a .b) 365 $ca ` + ed + ` }}`},
		{"signed nil CA", `{{ genSignedCert "a" nil nil 365 nil }}`, `{{ genSignedCertWithKey "a" nil nil 365 nil ` + ed + ` }}`},
		{"signed dot CA", `{{ genSignedCert "a" nil nil 365 . }}`, `{{ genSignedCertWithKey "a" nil nil 365 . ` + ed + ` }}`},
		{"signed field CA", `{{ genSignedCert "a" nil nil 365 .Values.ca }}`, `{{ genSignedCertWithKey "a" nil nil 365 .Values.ca ` + ed + ` }}`},
		{"signed variable field CA", `{{ $x := dict }}{{ genSignedCert "a" nil nil 365 $x.ca.inner }}`, `{{ $x := dict }}{{ genSignedCertWithKey "a" nil nil 365 $x.ca.inner ` + ed + ` }}`},
		{"signed by nested genCA", `{{ genSignedCert "a" nil nil 365 (genCA "b" 365) }}`,
			`{{ genSignedCertWithKey "a" nil nil 365 (genCAWithKey "b" 365 ` + ed + `) ` + ed + ` }}`},
		{"WithKey's own rsa key", `{{ genCAWithKey "x" 365 (genPrivateKey "rsa") }}`, `{{ genCAWithKey "x" 365 (genPrivateKey "ed25519") }}`},
		{"if else", `{{ if .a }}{{ genCA "a" 1 }}{{ else if genCA "b" 1 }}{{ genCA "c" 1 }}{{ else }}{{ genCA "d" 1 }}{{ end }}`,
			`{{ if .a }}{{ genCAWithKey "a" 1 ` + ed + ` }}{{ else if genCAWithKey "b" 1 ` + ed + ` }}{{ genCAWithKey "c" 1 ` + ed + ` }}{{ else }}{{ genCAWithKey "d" 1 ` + ed + ` }}{{ end }}`},
		{"range else", `{{ range $i, $c := .l }}{{ genCA "a" $i }}{{ else }}{{ genCA "b" 1 }}{{ end }}`,
			`{{ range $i, $c := .l }}{{ genCAWithKey "a" $i ` + ed + ` }}{{ else }}{{ genCAWithKey "b" 1 ` + ed + ` }}{{ end }}`},
		{"with", `{{ with $ca := genCA "a" 1 }}{{ .Cert }}{{ else }}{{ genCA "b" 1 }}{{ end }}`,
			`{{ with $ca := genCAWithKey "a" 1 ` + ed + ` }}{{ .Cert }}{{ else }}{{ genCAWithKey "b" 1 ` + ed + ` }}{{ end }}`},
		{"define and template", `{{ define "x" }}{{ genCA "a" 1 }}{{ end }}{{ template "x" (genCA "b" 1) }}`,
			`{{ define "x" }}{{ genCAWithKey "a" 1 ` + ed + ` }}{{ end }}{{ template "x" (genCAWithKey "b" 1 ` + ed + `) }}`},
		{"block", `{{ block "y" (genCA "a" 1) }}{{ genPrivateKey "rsa" }}{{ end }}`,
			`{{ block "y" (genCAWithKey "a" 1 ` + ed + `) }}{{ genPrivateKey "ed25519" }}{{ end }}`},
		{"comment kept", "{{- /* genCA \"x\" 1 */ -}}\n{{- genCA \"x\" 1 }}", "{{- /* genCA \"x\" 1 */ -}}\n{{- genCAWithKey \"x\" 1 " + ed + " }}"},
		{"text kept", "genCA \"x\" 1\n{{ genCA \"x\" 1 }}", "genCA \"x\" 1\n{{ genCAWithKey \"x\" 1 " + ed + " }}"},

		{"piped", `{{ "x" | genCA 365 }}`, ""},
		{"piped key type", `{{ "rsa" | genPrivateKey }}`, ""},
		{"dynamic key type", `{{ genPrivateKey .Values.t }}`, ""},
		{"other key type", `{{ genPrivateKey "ecdsa" }}`, ""},
		{"too few", `{{ genCA "x" }}`, ""},
		{"too many", `{{ genCA "x" 365 1 }}`, ""},
		{"signed too few", `{{ genSignedCert "a" nil nil 365 }}`, ""},
		{"private key too many", `{{ genPrivateKey "rsa" "x" }}`, ""},
		{"as an argument", `{{ list genCA }}`, ""},
		{"in a string", `{{ print "genCA \"x\" 365" }}`, ""},
		{"in a raw string", "{{ print `genCA \"x\" 365` }}", ""},
		{"in a comment", `{{/* genCA "x" 365 */}}`, ""},
		{"in text", `genCA "x" 365`, ""},
		{"field named so", `{{ .genCA "x" 365 }}`, ""},
		{"variable named so", `{{ $genCA := 1 }}{{ $genCA }}`, ""},
		{"already with key", `{{ genCAWithKey "x" 365 (genPrivateKey "ecdsa") }}`, ""},
		{"does not parse", `{{ genCA "x" 365 }}{{ end }}`, ""},
		{"other delimiters are text", `[[ genCA "x" 365 ]]`, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, ok := cheapKeysTemplate("t.yaml", []byte(tc.in))
			if tc.want == "" {
				if ok {
					t.Fatalf("rewrote %q to %q, want it left alone", tc.in, got)
				}
				return
			}
			if !ok || string(got) != tc.want {
				t.Fatalf("rewrote %q to\n  %q (%v), want\n  %q", tc.in, got, ok, tc.want)
			}
			checkRewrite(t, tc.in, string(got))
		})
	}
}

// TestCheapKeysCopies: the rewrite writes new chart.Files (in a new
// slice) and never the loaded bytes, in the chart and its dependencies.
func TestCheapKeysCopies(t *testing.T) {
	src := []byte(`{{ genCA "x" 365 }}`)
	keep := string(src)
	file := &chart.File{Name: "templates/a.yaml", Data: src}
	other := &chart.File{Name: "templates/b.yaml", Data: []byte("a: 1")}
	sub := &chart.Chart{Metadata: &chart.Metadata{Name: "sub"}, Templates: []*chart.File{file}}
	c := &chart.Chart{Metadata: &chart.Metadata{Name: "top"}, Templates: []*chart.File{other, file}}
	c.AddDependency(sub)
	before := c.Templates
	Rewrite(c)
	if string(src) != keep || string(file.Data) != keep || before[1] != file {
		t.Fatalf("the loaded template was written to: %q", src)
	}
	for _, ch := range []*chart.Chart{c, sub} {
		got := ch.Templates[len(ch.Templates)-1]
		if got == file || !strings.Contains(string(got.Data), "genCAWithKey") || got.Name != file.Name {
			t.Errorf("%s: template %+v not rewritten into a copy", ch.Name(), got)
		}
	}
	if c.Templates[0] != other {
		t.Errorf("an untouched template was copied")
	}
}

// renderTemplate renders one template through Helm's engine with the
// rewrite, as renderLoaded does.
func renderTemplate(t *testing.T, tpl string, vals map[string]any) string {
	t.Helper()
	c := &chart.Chart{Metadata: &chart.Metadata{Name: "keys", APIVersion: "v2", Version: "0.1.0"},
		Templates: []*chart.File{{Name: "templates/x.yaml", Data: []byte(tpl)}}}
	rv, err := chartutil.ToRenderValues(c, vals, chartutil.ReleaseOptions{Name: "rel", Namespace: "demo"}, chartutil.DefaultCapabilities)
	if err != nil {
		t.Fatal(err)
	}
	var eng engine.Engine
	keyed, _ := Rewrite(c)
	out, err := eng.Render(keyed, rv)
	if err != nil {
		t.Fatal(err)
	}
	return out["keys/templates/x.yaml"]
}

// TestKeysFinding: a chart whose rendered templates made keys says so,
// naming each such template at its first key call; a template whose key
// call did not run (it rendered nothing) is not named, and with Helm's own
// keys there is nothing to say.
func TestKeysFinding(t *testing.T) {
	load := func() *chart.Chart {
		return &chart.Chart{Metadata: &chart.Metadata{Name: "keys", APIVersion: "v2", Version: "0.1.0"},
			Templates: []*chart.File{
				{Name: "templates/on.yaml", Data: []byte("# made\n{{- $ca := genCA \"x\" 1 }}\nkind: Secret\ndata:\n  ca: {{ $ca.Cert | b64enc }}\n")},
				{Name: "templates/off.yaml", Data: []byte("{{- if .Values.off }}\nkey: {{ genPrivateKey \"rsa\" | b64enc }}\n{{- end }}\n")},
				{Name: "templates/plain.yaml", Data: []byte("kind: ConfigMap\n")},
			}}
	}
	render := func(c *chart.Chart) *check.Finding {
		keyed, rewritten := Rewrite(c)
		rv, err := chartutil.ToRenderValues(keyed, map[string]any{}, chartutil.ReleaseOptions{Name: "rel", Namespace: "demo"}, chartutil.DefaultCapabilities)
		if err != nil {
			t.Fatal(err)
		}
		var eng engine.Engine
		out, err := eng.Render(keyed, rv)
		if err != nil {
			t.Fatal(err)
		}
		return Finding("charts/keys", rewritten, out, func(name string) string {
			return "charts/" + strings.TrimPrefix(name, "keys/")
		})
	}
	f := render(load())
	if f == nil {
		t.Fatal("no finding for a chart that made a CA")
	}
	if f.Check != check.HelmKeysEd25519 || f.Location.File != "charts/templates/on.yaml" || f.Location.Line != 2 ||
		!strings.Contains(f.Message, "charts/templates/on.yaml:2 makes keys") || strings.Contains(f.Message, "off.yaml") {
		t.Errorf("finding %+v", f)
	}
	HelmsOwn = true
	defer func() { HelmsOwn = false }()
	if f := render(load()); f != nil {
		t.Errorf("with Helm's keys: %+v", f)
	}
}

// pemOf decodes the base64 PEM block of the rendered line "name: <b64>".
func pemOf(t *testing.T, out, name string) *pem.Block {
	t.Helper()
	for _, l := range strings.Split(out, "\n") {
		if v, ok := strings.CutPrefix(l, name+": "); ok {
			raw, err := base64.StdEncoding.DecodeString(v)
			if err != nil {
				t.Fatalf("%s: %v", name, err)
			}
			b, rest := pem.Decode(raw)
			if b == nil || strings.TrimSpace(string(rest)) != "" {
				t.Fatalf("%s: not one PEM block: %q", name, raw)
			}
			return b
		}
	}
	t.Fatalf("no %s in %q", name, out)
	return nil
}

// certOf is the certificate "name.crt" with its ed25519 key "name.key",
// which must be its pair.
func certOf(t *testing.T, out, name string) *x509.Certificate {
	t.Helper()
	cb, kb := pemOf(t, out, name+".crt"), pemOf(t, out, name+".key")
	cert, err := x509.ParseCertificate(cb.Bytes)
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	if _, ok := cert.PublicKey.(ed25519.PublicKey); !ok || kb.Type != "PRIVATE KEY" {
		t.Errorf("%s: a %T key (%s), want ed25519", name, cert.PublicKey, kb.Type)
	}
	if _, err := tls.X509KeyPair(pem.EncodeToMemory(cb), pem.EncodeToMemory(kb)); err != nil {
		t.Errorf("%s: the key is not the certificate's: %v", name, err)
	}
	return cert
}

func verify(t *testing.T, leaf, ca *x509.Certificate, dns string) {
	t.Helper()
	roots := x509.NewCertPool()
	roots.AddCert(ca)
	if _, err := leaf.Verify(x509.VerifyOptions{Roots: roots, DNSName: dns}); err != nil {
		t.Errorf("%s does not verify against %s: %v", leaf.Subject.CommonName, ca.Subject.CommonName, err)
	}
}

// TestCheapKeysRender: what each rewritten call renders is still a valid
// PEM key or certificate, the signed ones verify against their CA, and a
// CA made from an RSA key (buildCustomCert from values) still signs the
// ed25519 leaf.
func TestCheapKeysRender(t *testing.T) {
	rsaCA, rsaKey := rsaCAPEM(t)
	out := renderTemplate(t, `
{{- $ca := genCA "the-ca" 365 }}
{{- $leaf := genSignedCert "leaf" (list "10.0.0.1") (list "leaf.demo.svc") 365 $ca }}
{{- $self := genSelfSignedCert "self" nil (list "self.example") 30 }}
{{- $custom := buildCustomCert .Values.caCert .Values.caKey }}
{{- $byRSA := genSignedCert "by-rsa" nil (list "by-rsa.example") 365 $custom }}
key: {{ genPrivateKey "rsa" | b64enc }}
dsa: {{ genPrivateKey "dsa" | b64enc }}
ca.crt: {{ $ca.Cert | b64enc }}
ca.key: {{ $ca.Key | b64enc }}
leaf.crt: {{ $leaf.Cert | b64enc }}
leaf.key: {{ $leaf.Key | b64enc }}
self.crt: {{ $self.Cert | b64enc }}
self.key: {{ $self.Key | b64enc }}
by-rsa.crt: {{ $byRSA.Cert | b64enc }}
by-rsa.key: {{ $byRSA.Key | b64enc }}
`, map[string]any{"caCert": base64.StdEncoding.EncodeToString(rsaCA), "caKey": base64.StdEncoding.EncodeToString(rsaKey)})
	for _, name := range []string{"key", "dsa"} {
		b := pemOf(t, out, name)
		k, err := x509.ParsePKCS8PrivateKey(b.Bytes)
		if _, ok := k.(ed25519.PrivateKey); err != nil || !ok || b.Type != "PRIVATE KEY" {
			t.Errorf("%s: %s %T (%v), want a PKCS#8 ed25519 key", name, b.Type, k, err)
		}
	}
	ca := certOf(t, out, "ca")
	if !ca.IsCA {
		t.Errorf("genCA made no CA")
	}
	verify(t, ca, ca, "")
	leaf := certOf(t, out, "leaf")
	verify(t, leaf, ca, "leaf.demo.svc")
	if len(leaf.IPAddresses) != 1 || leaf.IPAddresses[0].String() != "10.0.0.1" {
		t.Errorf("leaf IPs %v", leaf.IPAddresses)
	}
	self := certOf(t, out, "self")
	if err := self.CheckSignature(self.SignatureAlgorithm, self.RawTBSCertificate, self.Signature); err != nil || self.DNSNames[0] != "self.example" {
		t.Errorf("self-signed: %v %v", err, self.DNSNames)
	}
	custom, _ := x509.ParseCertificate(mustPEM(t, rsaCA).Bytes)
	verify(t, certOf(t, out, "by-rsa"), custom, "by-rsa.example")
}

func mustPEM(t *testing.T, data []byte) *pem.Block {
	t.Helper()
	b, _ := pem.Decode(data)
	if b == nil {
		t.Fatal("no PEM")
	}
	return b
}

// rsaCAPEM is a CA certificate and its RSA key, as PEM.
func rsaCAPEM(t *testing.T) (cert, key []byte) {
	t.Helper()
	k, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "rsa-ca"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(24 * time.Hour),
		IsCA: true, BasicConstraintsValid: true, KeyUsage: x509.KeyUsageCertSign | x509.KeyUsageDigitalSignature}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &k.PublicKey, k)
	if err != nil {
		t.Fatal(err)
	}
	return pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}),
		pem.EncodeToMemory(&pem.Block{Type: "RSA PRIVATE KEY", Bytes: x509.MarshalPKCS1PrivateKey(k)})
}
