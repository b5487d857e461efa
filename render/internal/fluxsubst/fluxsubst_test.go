package fluxsubst

import (
	"strings"
	"testing"
	"time"

	"github.com/capreport/capreport/check"
	"github.com/capreport/capreport/render/internal/object"
	"github.com/capreport/capreport/render/internal/yamldoc"
)

func substObject(t testing.TB, yaml string) object.Object {
	t.Helper()
	raws, _, err := yamldoc.Decode([]byte(yaml), 1)
	if err != nil || len(raws) != 1 {
		t.Fatalf("fixture: %v", err)
	}
	o, ok := object.FromDoc(raws[0].Doc)
	if !ok {
		t.Fatal("fixture is not an object")
	}
	o.Origin = object.Origin{File: "apps/hpa.yaml", Line: 1, Source: "apps"}
	return o
}

// Flux's postBuild semantics (fluxcd/pkg/envsubst, kustomize-controller
// tests in kustomization_varsub_test.go): plain, default and alternative
// forms; numbers become numbers; a disabled object is left alone; an
// undefined variable is kept as text (capreport's one difference).
func TestSubstitute(t *testing.T) {
	ks := &object.Object{Kind: "Kustomization", Name: "apps", Namespace: "flux-system", Origin: object.Origin{File: "clusters/apps.yaml", Line: 1}}
	cases := []struct {
		name, doc  string
		vars       map[string]string
		wantMin    any
		wantMax    any
		wantName   string
		unresolved string
	}{
		{"plain", hpaDoc("web", "${max}"), map[string]string{"max": "7"}, int64(1), int64(7), "web", ""},
		{"default when unset", hpaDoc("web", "${max:=5}"), map[string]string{"other": "1"}, int64(1), int64(5), "web", ""},
		{"set wins over default", hpaDoc("web", "${max:=5}"), map[string]string{"max": "9"}, int64(1), int64(9), "web", ""},
		{"dash default", hpaDoc("web", "${max:-6}"), map[string]string{}, int64(1), int64(6), "web", ""},
		{"in a name", hpaDoc("web-${env}", "3"), map[string]string{"env": "prod"}, int64(1), int64(3), "web-prod", ""},
		{"undefined kept", hpaDoc("web", "${max}"), map[string]string{"env": "prod"}, int64(1), "${max}", "web", "${max}"},
		{"disabled", strings.Replace(hpaDoc("web", "${max}"), "metadata:\n", "metadata:\n  annotations:\n    kustomize.toolkit.fluxcd.io/substitute: disabled\n", 1),
			map[string]string{"max": "7"}, int64(1), "${max}", "web", ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			objs := []object.Object{substObject(t, c.doc)}
			fs := All(ks, objs, c.vars)
			spec, _ := objs[0].Doc["spec"].(map[string]any)
			if spec["minReplicas"] != c.wantMin || spec["maxReplicas"] != c.wantMax || objs[0].Name != c.wantName {
				t.Errorf("min %#v max %#v name %q, want %#v %#v %q", spec["minReplicas"], spec["maxReplicas"], objs[0].Name, c.wantMin, c.wantMax, c.wantName)
			}
			if objs[0].Origin.File != "apps/hpa.yaml" {
				t.Errorf("origin lost: %+v", objs[0].Origin)
			}
			if c.unresolved == "" && len(fs) > 0 {
				t.Errorf("unexpected findings: %+v", fs)
			}
			if c.unresolved != "" && (len(fs) != 1 || fs[0].Check != check.GitOpsSubstitution || !strings.Contains(fs[0].Message, c.unresolved)) {
				t.Errorf("findings %+v, want one %s naming %s", fs, check.GitOpsSubstitution, c.unresolved)
			}
		})
	}
}

// A value referenced many times cannot blow an object up: the bound is
// checked before substituting.
func TestSubstituteAmplification(t *testing.T) {
	ks := &object.Object{Kind: "Kustomization", Name: "apps", Origin: object.Origin{File: "clusters/apps.yaml", Line: 1}}
	doc := "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: boom\ndata:\n" + strings.Repeat("  k${i}: ${big}${big}${big}${big}\n", 1) +
		"  all: \"" + strings.Repeat("${big}", 5000) + "\"\n"
	objs := []object.Object{substObject(t, doc)}
	start := time.Now()
	fs := All(ks, objs, map[string]string{"big": strings.Repeat("x", 1<<20), "i": "1"})
	if time.Since(start) > 5*time.Second {
		t.Errorf("took %s", time.Since(start))
	}
	if len(fs) != 1 || !strings.Contains(fs[0].Message, "limit") {
		t.Fatalf("findings %+v, want one refusal over the limit", fs)
	}
	if d, _ := objs[0].Doc["data"].(map[string]any); len(d["all"].(string)) > 1<<16 {
		t.Errorf("the object was substituted anyway")
	}
}

func TestSubstituteInvalidVarName(t *testing.T) {
	ks := &object.Object{Kind: "Kustomization", Name: "apps", Origin: object.Origin{File: "clusters/apps.yaml", Line: 1}}
	objs := []object.Object{substObject(t, hpaDoc("web", "${max}"))}
	fs := All(ks, objs, map[string]string{"not-valid": "1", "max": "3"})
	if len(fs) != 1 || !strings.Contains(fs[0].Message, `"not-valid" is not a valid name`) {
		t.Errorf("findings %+v", fs)
	}
}

// FuzzSubstitute: any manifest text and variables; substitution never
// panics, and what it yields stays within the bound.
func FuzzSubstitute(f *testing.F) {
	f.Add("maxReplicas: ${max}", "max", "7")
	f.Add("name: ${a:=b}-${c:-d}-${e:+f}", "a", "x")
	f.Add("x: ${a/b/c} ${#a} ${a^^} ${a:1:2} $${esc}", "a", "hello")
	f.Add("x: ${", "a", "1")
	f.Add("x: ${a:?required}", "b", "1")
	f.Fuzz(func(t *testing.T, text, name, value string) {
		doc := "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: f\ndata:\n  v: " + quoteYAML(text) + "\n"
		raws, _, err := yamldoc.Decode([]byte(doc), 1)
		if err != nil || len(raws) != 1 {
			return
		}
		o, ok := object.FromDoc(raws[0].Doc)
		if !ok {
			return
		}
		ks := &object.Object{Kind: "Kustomization", Name: "f"}
		objs := []object.Object{o}
		_ = All(ks, objs, map[string]string{name: value})
		if d, _ := objs[0].Doc["data"].(map[string]any); d != nil {
			if s, ok := d["v"].(string); ok && len(s) > MaxBytes {
				t.Fatalf("substituted value of %d bytes", len(s))
			}
		}
	})
}

func quoteYAML(s string) string {
	return `"` + strings.NewReplacer(`\`, `\\`, `"`, `\"`, "\n", `\n`, "\r", `\r`, "\t", `\t`).Replace(s) + `"`
}

// hpaDoc is an HPA of the given name and maxReplicas text, as render's
// tests write them.
func hpaDoc(name, max string) string {
	return "apiVersion: autoscaling/v2\nkind: HorizontalPodAutoscaler\nmetadata:\n  name: " + name +
		"\nspec:\n  scaleTargetRef:\n    apiVersion: apps/v1\n    kind: Deployment\n    name: " + name + "\n  minReplicas: 1\n  maxReplicas: " + max + "\n"
}

// kustomize-controller reads the substituted text back with
// sigs.k8s.io/yaml.YAMLToJSON (fluxcd/pkg/kustomize varSubstitution):
// yaml.v2, YAML 1.1, then JSON. So a substituted yes, on, y or Off is a
// boolean, 0777 octal, 1_000 and 0b101 numbers, 1.0 and 1e3 integers (the
// JSON prints them so), a timestamp or 12:30 a string, a key yes "true";
// a value JSON cannot hold (.nan) fails the substitution; only the first
// document is kept. (yaml.v3, YAML 1.2, reads the first six as strings.)
func TestSubstituteReadsBackAsFlux(t *testing.T) {
	ks := &object.Object{Kind: "Kustomization", Name: "apps", Origin: object.Origin{File: "clusters/apps.yaml", Line: 1}}
	cases := []struct {
		value string
		want  any // spec.x; an error's words when a string starting "error: "
	}{
		{"yes", true}, {"on", true}, {"y", true}, {"Off", false}, {"NO", false}, {"True", true},
		{"0777", int64(511)}, {"1_000", int64(1000)}, {"0x1F", int64(31)}, {"0b101", int64(5)}, {"007", int64(7)},
		{"1.0", int64(1)}, {"1e3", int64(1000)}, {".5", 0.5}, {"+12", int64(12)},
		{"9223372036854775808", 9223372036854775808.0},
		{"~", nil}, {"null", nil},
		{"12:30", "12:30"}, {"2001-12-14", "2001-12-14"}, {"1e400", "1e400"}, {"web", "web"},
		{".nan", "error: json: unsupported value: NaN"},
		{"1\n---\nother: 2", int64(1)},
	}
	for _, c := range cases {
		doc := "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: c\nspec:\n  x: ${v}\n"
		objs := []object.Object{substObject(t, doc)}
		fs := All(ks, objs, map[string]string{"v": c.value})
		if want, ok := c.want.(string); ok && strings.HasPrefix(want, "error: ") {
			if len(fs) != 1 || !strings.Contains(fs[0].Message, strings.TrimPrefix(want, "error: ")) {
				t.Errorf("%q: findings %+v, want the substitution refused", c.value, fs)
			}
			continue
		}
		spec, _ := objs[0].Doc["spec"].(map[string]any)
		if len(fs) > 0 || spec["x"] != c.want || len(objs[0].Doc) != 4 {
			t.Errorf("%q: spec.x %#v (%d fields, findings %v), want %#v", c.value, spec["x"], len(objs[0].Doc), fs, c.want)
		}
	}
	objs := []object.Object{substObject(t, "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: c\ndata:\n  ${k}: v\n")}
	if fs := All(ks, objs, map[string]string{"k": "yes"}); len(fs) > 0 || objs[0].Doc["data"].(map[string]any)["true"] != "v" {
		t.Errorf("a key substituted to yes: %#v, %v; want the key \"true\"", objs[0].Doc["data"], fs)
	}
}
