package appset

import (
	"reflect"
	"strings"
	"testing"
)

func testExpander(goTemplate bool, options ...string) *expander {
	return &expander{goTemplate: goTemplate, options: options, work: workBudget, readLeft: maxReadBytes,
		outLeft: maxAppBytes, seen: map[Problem]bool{}, set: "argocd/test", opts: Options{MaxApplications: 1000}}
}

// replaceCase is one string rendered with one parameter set (upstream's TestRenderTemplateParams and
// TestRenderTemplateParamsGoTemplate render each case into every string field; one is enough here).
type replaceCase struct {
	name    string
	field   string
	params  map[string]any
	options []string
	want    string
	wantErr string // exact upstream message where ported
}

func (c replaceCase) run(t *testing.T, goTemplate bool) {
	t.Helper()
	e := testExpander(goTemplate, c.options...)
	got, err := e.replace(c.field, c.params, c.options)
	if c.wantErr != "" {
		if err == nil || err.Error() != c.wantErr {
			t.Fatalf("error = %v\nwant    %s", err, c.wantErr)
		}
		return
	}
	if err != nil {
		t.Fatalf("unexpected error: %v", err)
	}
	if got != c.want {
		t.Errorf("got %q, want %q", got, c.want)
	}
}

// Ported from utils_test.go TestRenderTemplateParams.
func TestReplaceLegacy(t *testing.T) {
	for _, c := range []replaceCase{
		{name: "simple substitution", field: "{{one}}", want: "two", params: map[string]any{"one": "two"}},
		{name: "simple substitution with whitespace", field: "{{ one }}", want: "two", params: map[string]any{"one": "two"}},
		{name: "template characters but not in a template", field: "}} {{", want: "}} {{", params: map[string]any{"one": "two"}},
		{name: "nested template", field: "{{ }}", want: "{{ }}", params: map[string]any{"one": "{{ }}"}},
		{name: "field with whitespace", field: "{{ }}", want: "{{ }}", params: map[string]any{" ": "two", "": "three"}},
		{name: "template contains itself, containing itself", field: "{{one}}", want: "{{one}}", params: map[string]any{"{{one}}": "{{one}}"}},
		{name: "template contains itself, containing something else", field: "{{one}}", want: "{{one}}", params: map[string]any{"{{one}}": "{{two}}"}},
		{name: "templates are case sensitive", field: "{{ONE}}", want: "{{ONE}}", params: map[string]any{"{{one}}": "two"}},
		{name: "multiple on a line", field: "{{one}}{{one}}", want: "twotwo", params: map[string]any{"one": "two"}},
		{name: "multiple different on a line", field: "{{one}}{{three}}", want: "twofour", params: map[string]any{"one": "two", "three": "four"}},
		{name: "multiple different on a line with quote", field: "{{one}} {{three}}", want: "\"hello\" world four", params: map[string]any{"one": "\"hello\" world", "three": "four"}},
		{name: "a non-string parameter leaves the tag", field: "{{n}}", want: "{{n}}", params: map[string]any{"n": 3.0}},
		{name: "tags on different lines are not templated", field: "{{one\n}}", want: "{{one\n}}", params: map[string]any{"one": "two"}},
		{
			name:    "Test_Render_Replace_no_panic_on_missing_closing_brace",
			field:   "{{properly.closed}} {{improperly.closed}",
			wantErr: `invalid template: Cannot find end tag="}}" in the template="{{properly.closed}} {{improperly.closed}" starting from "improperly.closed}"`,
		},
	} {
		t.Run(c.name, func(t *testing.T) { c.run(t, false) })
	}
}

// Ported from utils_test.go TestRenderTemplateParamsGoTemplate, with upstream's error messages.
func TestReplaceGoTemplate(t *testing.T) {
	for _, c := range goTemplateCases {
		t.Run(c.name, func(t *testing.T) { c.run(t, true) })
	}
}

func hpaParams(enabled bool) map[string]any {
	return map[string]any{"replicas": 3, "hpa": map[string]any{"enabled": enabled, "minReplicas": 1, "maxReplicas": 5}}
}

var goTemplateCases = []replaceCase{
	{name: "simple substitution", field: "{{ .one }}", want: "two", params: map[string]any{"one": "two"}},
	{name: "template contains itself, containing itself", field: "{{ .one }}", want: "{{one}}", params: map[string]any{"one": "{{one}}"}},
	{name: "multiple different on a line with quote", field: "{{.one}} {{.three}}", want: "\"hello\" world four", params: map[string]any{"one": "\"hello\" world", "three": "four"}},
	{name: "depth", field: "{{ .image.version }}", want: "latest", params: map[string]any{"replicas": 3, "image": map[string]any{"name": "busybox", "version": "latest"}}},
	{name: "multiple depth", field: "{{ .image.name }}:{{ .image.version }}", want: "busybox:latest", params: map[string]any{"image": map[string]any{"name": "busybox", "version": "latest"}}},
	{name: "if ok", field: "{{ if .hpa.enabled }}{{ .hpa.maxReplicas }}{{ else }}{{ .replicas }}{{ end }}", want: "5", params: hpaParams(true)},
	{name: "if not ok", field: "{{ if .hpa.enabled }}{{ .hpa.maxReplicas }}{{ else }}{{ .replicas }}{{ end }}", want: "3", params: hpaParams(false)},
	{
		name:   "loop",
		field:  "{{ range .volumes }}[{{ .name }}]{{ end }}",
		want:   "[volume-one][volume-two]",
		params: map[string]any{"volumes": []map[string]any{{"name": "volume-one"}, {"name": "volume-two"}}},
	},
	{name: "Index", field: `{{ index .admin "admin-ca" }}, {{ index .admin "admin-jks" }}`, want: "value admin ca, value admin jks",
		params: map[string]any{"admin": map[string]any{"admin-ca": "value admin ca", "admin-jks": "value admin jks"}}},
	{name: "quote", field: `{{.quote}}`, want: `"`, params: map[string]any{"quote": `"`}},
	{
		name:    "Test Parse Error",
		field:   `{{functiondoesnotexist}}`,
		params:  map[string]any{"data": `a data string`},
		wantErr: `failed to parse template {{functiondoesnotexist}}: template: base:1: function "functiondoesnotexist" not defined`,
	},
	{
		name:    "Test template error",
		field:   `{{.data.test}}`,
		params:  map[string]any{"data": `a data string`},
		wantErr: `failed to execute go template {{.data.test}}: template: base:1:7: executing "base" at <.data.test>: can't evaluate field test in type interface {}`,
	},
	{name: "lookup missing value with missingkey=default", field: `--> {{.doesnotexist}} <--`, want: `--> <no value> <--`, params: map[string]any{"unused": "this is not used"}},
	{
		name:    "lookup missing value with missingkey=error",
		field:   `--> {{.doesnotexist}} <--`,
		params:  map[string]any{"unused": "this is not used"},
		options: []string{"missingkey=error"},
		wantErr: `failed to execute go template --> {{.doesnotexist}} <--: template: base:1:6: executing "base" at <.doesnotexist>: map has no entry for key "doesnotexist"`,
	},
	{
		name:   "toYaml",
		field:  `{{ toYaml . | indent 2 }}`,
		want:   "  foo:\n    bar:\n      bool: true\n      number: 2\n      str: Hello world",
		params: map[string]any{"foo": map[string]any{"bar": map[string]any{"bool": true, "number": 2, "str": "Hello world"}}},
	},
	{name: "fromYaml", field: `{{ get (fromYaml .value) "hello" }}`, want: "world", params: map[string]any{"value": "hello: world"}},
	{
		name:    "fromYaml error",
		field:   `{{ get (fromYaml .value) "hello" }}`,
		params:  map[string]any{"value": "non\n compliant\n yaml"},
		wantErr: "failed to execute go template {{ get (fromYaml .value) \"hello\" }}: template: base:1:8: executing \"base\" at <fromYaml .value>: error calling fromYaml: error unmarshaling JSON: while decoding JSON: json: cannot unmarshal string into Go value of type map[string]interface {}",
	},
	{name: "fromYamlArray", field: `{{ fromYamlArray .value | last }}`, want: "bonjour tout le monde", params: map[string]any{"value": "- hello world\n- bonjour tout le monde"}},
	{name: "normalize", field: `{{ normalize .n }}`, want: "my-app.1", params: map[string]any{"n": "My_App.1-"}},
	{name: "slugify", field: `{{ slugify 10 false .n }}`, want: "feat-a-rea", params: map[string]any{"n": "feat/a_really_long"}},
	{name: "sprig works", field: `{{ .n | upper | trunc 3 }}-{{ list 1 2 | len }}`, want: "ABC-2", params: map[string]any{"n": "abcdef"}},
	{
		name:    "env is removed, as upstream does",
		field:   `{{ env "HOME" }}`,
		params:  map[string]any{"x": "y"},
		wantErr: `failed to parse template {{ env "HOME" }}: template: base:1: function "env" not defined`,
	},
}

// Ported from utils_test.go TestSlugify and the SanitizeName behaviour the git tests rely on.
func TestSlugify(t *testing.T) {
	for _, c := range []struct {
		branch string
		smart  bool
		length int
		want   string
	}{
		{"feat/a_really+long_pull_request_name_to_test_argo_slugification_and_branch_name_shortening_feature", false, 50, "feat-a-really-long-pull-request-name-to-test-argo"},
		{"feat/a_really+long_pull_request_name_to_test_argo_slugification_and_branch_name_shortening_feature", true, 53, "feat-a-really-long-pull-request-name-to-test-argo"},
		{"feat/areallylongpullrequestnametotestargoslugificationandbranchnameshorteningfeature", true, 50, "feat"},
		{"feat/areallylongpullrequestnametotestargoslugificationandbranchnameshorteningfeature", false, 50, "feat-areallylongpullrequestnametotestargoslugifica"},
	} {
		got, err := slugify(c.length, c.smart, c.branch)
		if err != nil || got != c.want {
			t.Errorf("slugify(%d, %v, %q) = %q, %v; want %q", c.length, c.smart, c.branch, got, err, c.want)
		}
	}
	if got, _ := slugify("Hello World"); got != "hello-world" {
		t.Errorf("slugify with defaults = %q", got)
	}
	if got := sanitizeName("file_name.yaml"); got != "file-name.yaml" {
		t.Errorf("sanitizeName = %q", got)
	}
}

// Ported from value_interpolation_test.go TestValueInterpolation and TestValueInterpolationWithGoTemplating.
func TestAppendValues(t *testing.T) {
	for _, c := range []struct {
		name       string
		goTemplate bool
		values     map[string]string
		params     map[string]any
		want       map[string]any
	}{
		{"Simple interpolation", false, map[string]string{"hello": "{{ world }}"}, map[string]any{"world": "world!"},
			map[string]any{"world": "world!", "values.hello": "world!"}},
		{"Non-existent", false, map[string]string{"non-existent": "{{ non-existent }}"}, map[string]any{},
			map[string]any{"values.non-existent": "{{ non-existent }}"}},
		{"Billion laughs", false, map[string]string{"lol1": "lol", "lol2": "{{values.lol1}}{{values.lol1}}", "lol3": "{{values.lol2}}{{values.lol2}}{{values.lol2}}"}, map[string]any{},
			map[string]any{"values.lol1": "lol", "values.lol2": "{{values.lol1}}{{values.lol1}}", "values.lol3": "{{values.lol2}}{{values.lol2}}{{values.lol2}}"}},
		{"Simple interpolation (goTemplate)", true, map[string]string{"hello": "{{ .world }}"}, map[string]any{"world": "world!"},
			map[string]any{"world": "world!", "values": map[string]any{"hello": "world!"}}},
		{"Non-existent to default", true, map[string]string{"non_existent": `{{ default "bar" .non_existent }}`}, map[string]any{},
			map[string]any{"values": map[string]any{"non_existent": "bar"}}},
		{"Billion laughs (goTemplate)", true, map[string]string{"lol1": "lol", "lol2": "{{.values.lol1}}{{.values.lol1}}", "lol3": "{{.values.lol2}}{{.values.lol2}}{{.values.lol2}}"}, map[string]any{},
			map[string]any{"values": map[string]any{"lol1": "lol", "lol2": "<no value><no value>", "lol3": "<no value><no value><no value>"}}},
	} {
		t.Run(c.name, func(t *testing.T) {
			e := testExpander(c.goTemplate)
			if err := e.appendValues(gitSpec{values: c.values}, c.params); err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(c.params, c.want) {
				t.Errorf("got %v, want %v", c.params, c.want)
			}
		})
	}
}

// Ported from generator_spec_processor_test.go TestInterpolateGeneratorValuesHandling and
// TestInterpolateGenerator_go: values are pre-resolved with missingkey=error and kept when a key is missing.
func TestInterpolateGenerator(t *testing.T) {
	for _, c := range []struct {
		name       string
		goTemplate bool
		gen        string
		params     map[string]any
		want       map[string]any
	}{
		{
			name: "Generator with values set", goTemplate: true,
			gen:    `{git: {repoURL: "https://somewhere.com/per-cluster/{{.name}}.git", files: [{path: "somedir/*"}], revision: main, values: {appname: "{{ .path.basenameNormalized }}", cluster: "{{ .name }}"}}}`,
			params: map[string]any{"name": "in-cluster", "server": "https://kubernetes.default.svc"},
			want: map[string]any{"git": map[string]any{"repoURL": "https://somewhere.com/per-cluster/in-cluster.git",
				"files": []any{map[string]any{"path": "somedir/*"}}, "revision": "main",
				"values": map[string]any{"appname": "{{ .path.basenameNormalized }}", "cluster": "in-cluster"}}},
		},
		{
			name:   "Generator with values set without go templates",
			gen:    `{git: {repoURL: "https://somewhere.com/per-cluster/{{name}}.git", files: [{path: "somedir/*"}], values: {appname: "{{ .path.basenameNormalized }}"}}}`,
			params: map[string]any{"name": "in-cluster"},
			want: map[string]any{"git": map[string]any{"repoURL": "https://somewhere.com/per-cluster/in-cluster.git",
				"files": []any{map[string]any{"path": "somedir/*"}}, "values": map[string]any{"appname": "{{ .path.basenameNormalized }}"}}},
		},
		{
			name: "selector labels and keys are rendered too", goTemplate: true,
			gen:    `{list: {elements: [{"{{.k}}": "{{index .path.segments 0}}"}]}, selector: {matchLabels: {kubernetes.io/environment: '{{default "foo" .my_label}}'}}}`,
			params: map[string]any{"k": "key", "path": map[string]any{"segments": []string{"p1", "p2"}}},
			want: map[string]any{"list": map[string]any{"elements": []any{map[string]any{"key": "p1"}}},
				"selector": map[string]any{"matchLabels": map[string]any{"kubernetes.io/environment": "foo"}}},
		},
	} {
		t.Run(c.name, func(t *testing.T) {
			e := testExpander(c.goTemplate)
			got, err := e.interpolate("generators[0].matrix.generators[1]", mustYAML(t, c.gen), c.params)
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, c.want) {
				t.Errorf("got %s\nwant %s", dump(got), dump(c.want))
			}
		})
	}
	e := testExpander(true)
	_, err := e.interpolate("g", mustYAML(t, `{git: {repoURL: foo, files: [{path: "path/{{ index .rmap (default .override .test) }}"}]}}`),
		map[string]any{"name": "in-cluster", "override": "foo"})
	const want = `g: failed to replace parameters in generator: failed to execute go template path/{{ index .rmap (default .override .test) }}: template: base:1:8: executing "base" at <index .rmap (default .override .test)>: error calling index: index of untyped nil`
	if err == nil || err.Error() != want {
		t.Errorf("TestInterpolateGeneratorError: error = %v\nwant %s", err, want)
	}
}

func TestRenderKeysAndNulls(t *testing.T) {
	for _, goTemplate := range []bool{false, true} {
		e := testExpander(goTemplate)
		key, value := "annotation-{{key}}", "annotation-{{value}}"
		if goTemplate {
			key, value = "annotation-{{ .key }}", "annotation-{{ .value }}"
		}
		doc := map[string]any{"annotations": map[string]any{key: value}, "dropped": nil, "list": []any{nil, "x"}}
		got, err := e.renderValue(doc, map[string]any{"key": "some-key", "value": "some-value"}, nil)
		if err != nil {
			t.Fatal(err)
		}
		want := map[string]any{"annotations": map[string]any{"annotation-some-key": "annotation-some-value"}, "list": []any{nil, "x"}}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("TestRenderTemplateKeys (goTemplate %v): got %v", goTemplate, got)
		}
	}
}

func TestTemplateOptionsValidated(t *testing.T) {
	_, err := templateOptions(map[string]any{"goTemplateOptions": []any{"missingkey=maybe"}})
	if err == nil || !strings.Contains(err.Error(), "unrecognized option") {
		t.Errorf("error = %v", err)
	}
}
