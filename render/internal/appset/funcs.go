package appset

import (
	"fmt"
	"math"
	"reflect"
	"regexp"
	"strings"
	"text/template"
	"unicode/utf8"

	"github.com/Masterminds/sprig/v3"
	"sigs.k8s.io/yaml"
)

// slowCrypto are sprig functions capreport does not run: they generate keys or salted hashes, which takes
// up to seconds each (RSA and DSA keys, scrypt, bcrypt) and gives a value that differs on every run, so no
// static render could match the cluster's anyway.
var slowCrypto = []string{"genPrivateKey", "genCA", "genCAWithKey", "genSelfSignedCert", "genSelfSignedCertWithKey",
	"genSignedCert", "genSignedCertWithKey", "derivePassword", "bcrypt", "htpasswd"}

// serializers print or copy whole arguments; the arguments are measured first, so that a value shared many
// times inside itself (a DAG made with dict) cannot unfold into gigabytes.
var serializers = map[string]bool{"cat": true, "print": true, "println": true, "printf": true, "quote": true,
	"squote": true, "toJson": true, "toPrettyJson": true, "toRawJson": true, "mustToJson": true,
	"mustToPrettyJson": true, "mustToRawJson": true, "toYaml": true, "toString": true, "toStrings": true,
	"join": true, "concat": true, "deepCopy": true, "mustDeepCopy": true, "html": true, "js": true,
	"urlquery": true, "deepEqual": true, "b64enc": true, "b32enc": true, "sha1sum": true, "sha256sum": true,
	"sha512sum": true, "adler32sum": true}

// Names of the functions instrument() inserts into parsed templates.
const (
	rangeFunc = "capreportRangeBudget"
	tickFunc  = "capreportTick"
)

// funcMap is upstream's: sprig's GenericFuncMap without env, expandenv and getHostByName, plus normalize,
// slugify, toYaml, fromYaml and fromYamlArray (applicationset/utils/utils.go). text/template's builtins
// that build strings (print, printf, println, html, js, urlquery) are overridden by the same functions so
// that they are bounded like the rest, and every function is wrapped by guard.
func (en *engine) funcMap() template.FuncMap {
	m := sprig.GenericFuncMap()
	delete(m, "env")
	delete(m, "expandenv")
	delete(m, "getHostByName")
	m["normalize"] = sanitizeName
	m["slugify"] = slugify
	m["toYaml"] = en.priced(toYAML)
	m["fromYaml"] = func(s string) (map[string]any, error) {
		en.must(en.e.spend(len(s) / yamlBytesPerUnit))
		return fromYAML(s)
	}
	m["fromYamlArray"] = func(s string) ([]any, error) { en.must(en.e.spend(len(s) / yamlBytesPerUnit)); return fromYAMLArray(s) }
	m["print"] = fmt.Sprint
	m["printf"] = fmt.Sprintf
	m["println"] = fmt.Sprintln
	m["html"] = template.HTMLEscaper
	m["js"] = template.JSEscaper
	m["urlquery"] = template.URLQueryEscaper
	for _, name := range slowCrypto {
		m[name] = refused(name)
	}
	out := make(template.FuncMap, len(m)+2)
	for name, fn := range m {
		out[name] = en.guard(name, fn)
	}
	out[rangeFunc] = en.rangeBudget
	out[tickFunc] = en.tick
	return out
}

func refused(name string) func(...any) (string, error) {
	return func(...any) (string, error) {
		return "", fmt.Errorf("capreport does not run %s: it is slow and its value differs on every run, so no static render knows it", name)
	}
}

// guard wraps fn with the same signature: it charges the call, checks the arguments of functions that can
// amplify (repeat, until, indent, replace, printf widths, ...) before the call, and bounds the result
// after. A bound that fails panics with the error, which text/template turns into an "error calling"
// execution error.
func (en *engine) guard(name string, fn any) any {
	v := reflect.ValueOf(fn)
	t := v.Type()
	if t.Kind() != reflect.Func {
		return fn
	}
	pre := preChecks[name]
	serial := serializers[name]
	return reflect.MakeFunc(t, func(in []reflect.Value) []reflect.Value {
		en.must(en.e.spend(callCost))
		args := flatArgs(t, in)
		if serial {
			en.must(en.measureArgs(name, args))
		}
		if pre != nil {
			en.must(pre(en, args))
		}
		var out []reflect.Value
		if t.IsVariadic() {
			out = v.CallSlice(in)
		} else {
			out = v.Call(in)
		}
		if len(out) == 2 && !out[1].IsNil() {
			return out
		}
		if len(out) > 0 {
			en.must(en.checkResult(name, out[0]))
		}
		return out
	}).Interface()
}

func (en *engine) must(err error) {
	if err != nil {
		panic(err)
	}
}

// flatArgs spreads the variadic slice MakeFunc passes last.
func flatArgs(t reflect.Type, in []reflect.Value) []reflect.Value {
	if !t.IsVariadic() || len(in) == 0 {
		return in
	}
	last := in[len(in)-1]
	args := append([]reflect.Value(nil), in[:len(in)-1]...)
	for i := 0; i < last.Len(); i++ {
		args = append(args, last.Index(i))
	}
	return args
}

func (en *engine) measureArgs(name string, args []reflect.Value) error {
	total := 0
	for _, a := range args {
		size, visited, ok := measure(valueOf(a), maxValueSize-total)
		if err := en.e.spend(visited / 8); err != nil {
			return err
		}
		total += size
		if !ok {
			return limitf(CheckTemplate, "%s: its arguments are larger than capreport's bound (%d units) or nested deeper than %d", name, maxValueSize, maxNesting)
		}
	}
	return nil
}

// checkResult bounds a function's result: a string by its length, anything else by measure, which also
// catches a cycle made with set or merge before anything prints it.
func (en *engine) checkResult(name string, r reflect.Value) error {
	v := valueOf(r)
	if s, ok := v.(string); ok {
		if len(s) > maxStringBytes {
			return limitf(CheckTemplate, "%s returns %d bytes, more than capreport's bound of %d", name, len(s), maxStringBytes)
		}
		return en.allocate(len(s))
	}
	switch reflect.ValueOf(v).Kind() {
	case reflect.Map, reflect.Slice, reflect.Array:
	default:
		return nil
	}
	_, visited, ok := measure(v, maxValueSize)
	if err := en.e.spend(visited / 8); err != nil {
		return err
	}
	if !ok {
		return limitf(CheckTemplate, "%s returns a value larger than capreport's bound (%d units), nested deeper than %d or holding itself", name, maxValueSize, maxNesting)
	}
	return en.allocate(shallowLen(v) * 16)
}

func (en *engine) allocate(n int) error {
	en.alloc += n
	if en.alloc > maxExecAlloc {
		return limitf(CheckTemplate, "one template execution builds more than capreport's bound of %d bytes", maxExecAlloc)
	}
	return en.e.spend(n / 32)
}

func valueOf(r reflect.Value) any {
	if !r.IsValid() || !r.CanInterface() {
		return nil
	}
	return r.Interface()
}

// rangeBudget is inserted at the end of every {{range}} pipeline: it charges the iterations to come and
// returns the value unchanged.
func (en *engine) rangeBudget(v any) (any, error) {
	n := 0
	rv := reflect.ValueOf(v)
	switch rv.Kind() {
	case reflect.Slice, reflect.Array, reflect.Map:
		n = rv.Len()
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		n = int(min(max(rv.Int(), 0), math.MaxInt32))
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		n = int(min(rv.Uint(), math.MaxInt32))
	}
	if err := en.e.spend(n * rangeCost); err != nil {
		return nil, err
	}
	return v, nil
}

// tick starts every template body.
func (en *engine) tick() (string, error) {
	en.calls++
	if en.calls > maxTemplateCalls {
		return "", limitf(CheckTemplate, "one template execution invokes templates more than capreport's %d times", maxTemplateCalls)
	}
	return "", en.e.spend(tickCost)
}

// priced charges toYaml by its output: sigs.k8s.io/yaml marshals to JSON, parses that as YAML and marshals
// it again, which costs far more per byte than the other functions.
func (en *engine) priced(fn func(any) (string, error)) func(any) (string, error) {
	return func(v any) (string, error) {
		out, err := fn(v)
		en.must(en.e.spend(len(out) / yamlBytesPerUnit))
		return out, err
	}
}

// toYAML, fromYAML and fromYAMLArray are upstream's (copied by upstream from Helm).
func toYAML(v any) (string, error) {
	data, err := yaml.Marshal(v)
	if err != nil {
		return "", err
	}
	return strings.TrimSuffix(string(data), "\n"), nil
}

func fromYAML(str string) (map[string]any, error) {
	m := map[string]any{}
	if err := yaml.Unmarshal([]byte(str), &m); err != nil {
		return nil, err
	}
	return m, nil
}

func fromYAMLArray(str string) ([]any, error) {
	a := []any{}
	if err := yaml.Unmarshal([]byte(str), &a); err != nil {
		return nil, err
	}
	return a, nil
}

// preChecks bound the functions whose output can be far larger than their input, before they run.
var preChecks = map[string]func(en *engine, args []reflect.Value) error{
	"repeat": func(_ *engine, a []reflect.Value) error {
		return bound("repeat", float64(argInt(a, 0))*float64(len(argStr(a, 1))))
	},
	"randAlphaNum":               countCheck("randAlphaNum"),
	"randAlpha":                  countCheck("randAlpha"),
	"randAscii":                  countCheck("randAscii"),
	"randNumeric":                countCheck("randNumeric"),
	"randBytes":                  countCheck("randBytes"),
	"indent":                     indentCheck,
	"nindent":                    indentCheck,
	"until":                      func(_ *engine, a []reflect.Value) error { return listBound("until", abs(argInt(a, 0))) },
	"untilStep":                  untilStepCheck,
	"seq":                        seqCheck,
	"wrapWith":                   wrapWithCheck,
	"replace":                    replaceCheck,
	"regexReplaceAll":            regexCheck(false),
	"mustRegexReplaceAll":        regexCheck(false),
	"regexReplaceAllLiteral":     regexCheck(true),
	"mustRegexReplaceAllLiteral": regexCheck(true),
	"join":                       joinCheck,
	"printf":                     printfCheck,
	"uniq":                       quadraticCheck,
	"mustUniq":                   quadraticCheck,
	"without":                    quadraticCheck,
	"mustWithout":                quadraticCheck,
}

// bound fails when a function would build more than maxStringBytes; n is a float64 so that a product of
// two huge arguments cannot overflow into a small number.
func bound(name string, n float64) error {
	if n > maxStringBytes || n < 0 {
		return limitf(CheckTemplate, "%s would build more than capreport's bound of %d bytes", name, maxStringBytes)
	}
	return nil
}

func listBound(name string, n int) error {
	if n > maxListLen || n < 0 {
		return limitf(CheckTemplate, "%s would build more than capreport's bound of %d elements", name, maxListLen)
	}
	return nil
}

func countCheck(name string) func(*engine, []reflect.Value) error {
	return func(_ *engine, a []reflect.Value) error { return bound(name, float64(argInt(a, 0))) }
}

func indentCheck(_ *engine, a []reflect.Value) error {
	s := argStr(a, 1)
	return bound("indent", float64(argInt(a, 0))*float64(strings.Count(s, "\n")+1)+float64(len(s)))
}

func untilStepCheck(_ *engine, a []reflect.Value) error {
	start, stop, step := argInt(a, 0), argInt(a, 1), argInt(a, 2)
	if step == 0 {
		return nil
	}
	return listBound("untilStep", int(min(math.Abs((float64(stop)-float64(start))/float64(step)), math.MaxInt32)))
}

func seqCheck(_ *engine, a []reflect.Value) error {
	span := 0.0
	switch len(a) {
	case 1:
		span = math.Abs(float64(argInt(a, 0)) - 1)
	case 2:
		span = math.Abs(float64(argInt(a, 1)) - float64(argInt(a, 0)))
	case 3:
		step := math.Max(math.Abs(float64(argInt(a, 1))), 1)
		span = math.Abs(float64(argInt(a, 2))-float64(argInt(a, 0))) / step
	}
	return listBound("seq", int(min(span, math.MaxInt32)))
}

func wrapWithCheck(_ *engine, a []reflect.Value) error {
	l, sep, s := max(argInt(a, 0), 1), argStr(a, 1), argStr(a, 2)
	return bound("wrapWith", float64(len(s)/l+1)*float64(len(sep))+float64(len(s)))
}

func replaceCheck(_ *engine, a []reflect.Value) error {
	old, repl, src := argStr(a, 0), argStr(a, 1), argStr(a, 2)
	n := utf8.RuneCountInString(src) + 1
	if old != "" {
		n = strings.Count(src, old)
	}
	return bound("replace", float64(len(src))+float64(n)*float64(len(repl)))
}

// regexCheck counts the matches, then bounds the expansion ($1 can repeat the whole input per match).
func regexCheck(literal bool) func(*engine, []reflect.Value) error {
	return func(en *engine, a []reflect.Value) error {
		re, err := regexp.Compile(argStr(a, 0))
		if err != nil {
			return nil // the function reports it
		}
		s, repl := argStr(a, 1), argStr(a, 2)
		if err := en.e.spend(len(s) / 16); err != nil {
			return err
		}
		n := len(re.FindAllStringIndex(s, -1))
		per := float64(len(repl))
		if !literal {
			per += float64(strings.Count(repl, "$")) * float64(len(s))
		}
		return bound("regexReplaceAll", float64(len(s))+float64(n)*per)
	}
}

func joinCheck(_ *engine, a []reflect.Value) error {
	if len(a) < 2 {
		return nil
	}
	return bound("join", float64(shallowLen(valueOf(a[1])))*float64(len(argStr(a, 0))))
}

// printfCheck bounds the widths and precisions of a format: fmt pads to each (up to a million bytes).
func printfCheck(_ *engine, a []reflect.Value) error {
	f := argStr(a, 0)
	total := 0
	for i := 0; i < len(f); i++ {
		if f[i] != '%' {
			continue
		}
		num := 0
		for i++; i < len(f) && strings.IndexByte("+-# 0123456789.*[]", f[i]) >= 0; i++ {
			switch c := f[i]; {
			case c >= '0' && c <= '9':
				num = min(num*10+int(c-'0'), 1e6)
			case c == '*':
				total += 1e6
			default:
				total += num
				num = 0
			}
		}
		total += num
	}
	return bound("printf", float64(total))
}

// quadraticCheck charges uniq and without, which compare every element with every other.
func quadraticCheck(en *engine, a []reflect.Value) error {
	n := 0
	if len(a) > 0 {
		n = shallowLen(valueOf(a[0]))
	}
	k := max(len(a)-1, n)
	return en.e.spend(int(min(float64(n)*float64(k)/64, math.MaxInt32)))
}

func argInt(a []reflect.Value, i int) int {
	if i >= len(a) {
		return 0
	}
	v := a[i]
	for v.Kind() == reflect.Interface && !v.IsNil() {
		v = v.Elem()
	}
	switch v.Kind() {
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return int(v.Int())
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return int(min(v.Uint(), math.MaxInt64))
	}
	return 0
}

func argStr(a []reflect.Value, i int) string {
	if i >= len(a) {
		return ""
	}
	s, _ := valueOf(a[i]).(string)
	return s
}

func abs(n int) int {
	if n < 0 {
		return -n
	}
	return n
}
