package fluxsubst

import (
	"strings"

	"github.com/fluxcd/pkg/envsubst"
)

// eval.go is envsubst as both ways of substituting run it (fluxsubst.go,
// fast.go), and the bound on what it may write.

// MaxBytes bounds one object after substitution: a value
// referenced many times could otherwise multiply the object's size.
const MaxBytes = 4 << 20

// evalKeeping is envsubst's strict Eval of text with vars, an undefined
// variable that kept holds left as its own text.
func evalKeeping(text string, vars map[string]string, kept map[string]bool) (string, error) {
	return envsubst.Eval(text, func(name string) (string, bool) {
		if v, ok := vars[name]; ok {
			return v, true
		}
		if kept[name] {
			return "${" + name + "}", true
		}
		return "", false
	})
}

// unsetVariable reads the variable name from envsubst's strict-mode error.
func unsetVariable(err error) (string, bool) {
	if err == nil {
		return "", false
	}
	msg := err.Error()
	i := strings.Index(msg, "variable not set (strict mode): ")
	if i < 0 {
		return "", false
	}
	name := strings.Trim(msg[i+len("variable not set (strict mode): "):], `"`)
	return name, name != ""
}

// substitutionBound is the largest size the substitution could produce:
// the text plus, per reference, the longest value.
func substitutionBound(text string, vars map[string]string) int {
	longest := 0
	for _, v := range vars {
		longest = max(longest, len(v))
	}
	return len(text) + strings.Count(text, "$")*longest
}
