package render

import (
	"context"
	"crypto/ed25519"
	"crypto/rsa"
	"crypto/x509"
	"encoding/base64"
	"encoding/pem"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/capreport/capreport/check"
	"github.com/capreport/capreport/internal/testutil"
	"github.com/capreport/capreport/render/internal/helmkeys"
)

// renderKeys renders root with the rewrite on, or with Helm's own RSA
// keys (helmkeys.HelmsOwn).
func renderKeys(t *testing.T, root string, sources []SourceSpec, withHelmKeys bool) *Result {
	t.Helper()
	helmkeys.HelmsOwn = withHelmKeys
	defer func() { helmkeys.HelmsOwn = false }()
	opts := DefaultOptions()
	opts.Sources = sources
	res, err := Render(context.Background(), root, opts)
	if err != nil {
		t.Fatal(err)
	}
	return res
}

// withoutKeyMaterial is res without what the rewrite changes: the data of
// Secrets and every caBundle field.
func withoutKeyMaterial(res *Result) *Result {
	out := *res
	out.Findings = withoutKeysFindings(res.Findings)
	out.Sources = make([]SourceResult, len(res.Sources))
	for i, src := range res.Sources {
		src.Findings = withoutKeysFindings(src.Findings)
		out.Sources[i] = src
	}
	out.Objects = make([]Object, len(res.Objects))
	for i, o := range res.Objects {
		o.Doc = blankCABundles(o.Doc).(map[string]any)
		if o.Kind == "Secret" {
			delete(o.Doc, "data")
			delete(o.Doc, "stringData")
		}
		out.Objects[i] = o
	}
	return &out
}

// withoutKeysFindings is fs without helm-keys-ed25519 findings.
func withoutKeysFindings(fs []check.Finding) []check.Finding {
	out := slices.DeleteFunc(slices.Clone(fs), func(f check.Finding) bool { return f.Check == check.HelmKeysEd25519 })
	if len(out) == 0 {
		return nil
	}
	return out
}

// keyedSources counts the sources with a helm-keys-ed25519 finding.
func keyedSources(res *Result) int {
	n := 0
	for _, src := range res.Sources {
		if slices.ContainsFunc(src.Findings, func(f check.Finding) bool { return f.Check == check.HelmKeysEd25519 }) {
			n++
		}
	}
	return n
}

// blankCABundles is a copy of v without caBundle keys.
func blankCABundles(v any) any {
	switch v := v.(type) {
	case map[string]any:
		m := make(map[string]any, len(v))
		for k, x := range v {
			if k != "caBundle" {
				m[k] = blankCABundles(x)
			}
		}
		return m
	case []any:
		s := make([]any, len(v))
		for i, x := range v {
			s[i] = blankCABundles(x)
		}
		return s
	}
	return v
}

// secretCertKey is the public keys of the certificates in the rendered
// Secrets' data[key], in order.
func secretCertKey(t *testing.T, res *Result, key string) []any {
	t.Helper()
	var keys []any
	for _, o := range res.Objects {
		data, _ := o.Doc["data"].(map[string]any)
		v, ok := data[key].(string)
		if o.Kind != "Secret" || !ok {
			continue
		}
		raw, err := base64.StdEncoding.DecodeString(v)
		b, _ := pem.Decode(raw)
		if err != nil || b == nil {
			t.Fatalf("%s %s: no PEM: %v", o.Name, key, err)
		}
		cert, err := x509.ParseCertificate(b.Bytes)
		if err != nil {
			t.Fatalf("%s %s: %v", o.Name, key, err)
		}
		keys = append(keys, cert.PublicKey)
	}
	return keys
}

// TestCheapKeysCorpus: bitnami-nginx (its TLS Secret, and the Ingress
// ones with self-signed certificates) and ingress-nginx render the same
// objects, at the same lines, with the same findings, with the rewrite as
// with Helm's RSA keys, but for Secret data and caBundles; the
// certificates they hold are ed25519 ones with the rewrite and RSA ones
// without. (ingress-nginx's chart calls none of the key functions: its
// webhook certificate is made by a Job or cert-manager.) Each source whose
// render made keys says so in a finding of its own, which Helm's keys do
// not raise.
func TestCheapKeysCorpus(t *testing.T) {
	testutil.SkipIfShort(t)
	corpus := testutil.Corpus(t)
	hv := HelmValues{ReleaseName: "rel", Namespace: "demo"}
	values := hv
	values.ValuesFiles = []string{"capreport-values.yaml"}
	selfSigned := hv
	selfSigned.Set = []string{"ingress.enabled=true,ingress.hostname=nginx.example,ingress.tls=true,ingress.selfSigned=true",
		"healthIngress.enabled=true,healthIngress.hostname=health.example,healthIngress.tls=true,healthIngress.selfSigned=true"}
	for _, tc := range []struct {
		dir     string
		sources []SourceSpec
		certs   int // certificates (tls.crt) in Secrets
		keyed   int // sources with a helm-keys-ed25519 finding
	}{
		{"bitnami-nginx", []SourceSpec{
			{Path: ".", Type: SourceHelm, Name: "defaults", Helm: hv},
			{Path: ".", Type: SourceHelm, Name: "capreport", Helm: values},
			{Path: ".", Type: SourceHelm, Name: "self-signed", Helm: selfSigned},
		}, 5, 3},
		{"ingress-nginx-keda", []SourceSpec{
			{Path: ".", Type: SourceHelm, Name: "defaults", Helm: hv},
			{Path: ".", Type: SourceHelm, Name: "capreport", Helm: values},
		}, 0, 0},
	} {
		t.Run(tc.dir, func(t *testing.T) {
			root := filepath.Join(corpus, tc.dir)
			cheap := renderKeys(t, root, tc.sources, false)
			helm := renderKeys(t, root, tc.sources, true)
			for _, s := range cheap.Sources {
				if s.Status != StatusRendered {
					t.Errorf("%s@%s: %s: %s", s.Path, s.ValueSet, s.Status, s.Reason)
				}
			}
			if got := keyedSources(cheap); got != tc.keyed || keyedSources(helm) != 0 {
				t.Errorf("%d sources say their keys are ed25519 (%d with Helm's keys); want %d", got, keyedSources(helm), tc.keyed)
			}
			if d := cmp.Diff(withoutKeyMaterial(helm), withoutKeyMaterial(cheap)); d != "" {
				t.Errorf("with the rewrite (+) the render differs from Helm's keys (-) beyond key material:\n%s", d)
			}
			cheapPubs, helmPubs := secretCertKey(t, cheap, "tls.crt"), secretCertKey(t, helm, "tls.crt")
			if len(cheapPubs) != tc.certs || len(helmPubs) != tc.certs {
				t.Fatalf("%d and %d certificates, want %d", len(cheapPubs), len(helmPubs), tc.certs)
			}
			for i := range cheapPubs {
				_, ed := cheapPubs[i].(ed25519.PublicKey)
				_, rs := helmPubs[i].(*rsa.PublicKey)
				if !ed || !rs {
					t.Errorf("certificate %d: %T with the rewrite and %T without, want ed25519 and RSA", i, cheapPubs[i], helmPubs[i])
				}
			}
		})
	}
}

// TestCheapKeysRawPEMLines: the one visible difference the rewrite makes
// beyond key material. A template that writes a PEM key as it is (not
// base64) writes fewer lines with an ed25519 key than with an RSA one, so
// the objects after it in that template start on an earlier line of the
// rendered output, by exactly the difference.
func TestCheapKeysRawPEMLines(t *testing.T) {
	dir := t.TempDir()
	testutil.WriteTree(t, dir, map[string]string{
		"Chart.yaml": "apiVersion: v2\nname: raw\nversion: 0.1.0\n",
		"templates/x.yaml": `{{- $ca := genCA "x" 365 }}
apiVersion: v1
kind: Secret
metadata:
  name: a
stringData:
  ca.key: |
    {{- $ca.Key | nindent 4 }}
---
apiVersion: v1
kind: ConfigMap
metadata:
  name: b
`,
	})
	src := []SourceSpec{{Path: ".", Type: SourceHelm, Helm: HelmValues{ReleaseName: "rel", Namespace: "demo"}}}
	lines := func(res *Result) (keyLines, cmLine int) {
		for _, o := range res.Objects {
			switch o.Kind {
			case "Secret":
				keyLines = strings.Count(o.Doc["stringData"].(map[string]any)["ca.key"].(string), "\n")
			case "ConfigMap":
				cmLine = o.Origin.Line
			}
		}
		return keyLines, cmLine
	}
	cheapKey, cheapLine := lines(renderKeys(t, dir, src, false))
	helmKey, helmLine := lines(renderKeys(t, dir, src, true))
	if cheapKey != 3 || helmKey < 20 {
		t.Fatalf("keys of %d and %d lines, want 3 (ed25519) and some 27 (RSA)", cheapKey, helmKey)
	}
	if helmLine-cheapLine != helmKey-cheapKey {
		t.Errorf("the ConfigMap is on line %d with the rewrite and %d without; want a difference of %d", cheapLine, helmLine, helmKey-cheapKey)
	}
}
