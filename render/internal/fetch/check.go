package fetch

import "github.com/capreport/capreport/check"

// Check is the check ID of a fetch error ("" for other errors).
func Check(err error) string {
	k, ok := KindOf(err)
	if !ok {
		return ""
	}
	return map[Kind]string{Failed: check.FetchFailed, Limit: check.FetchLimit,
		Unsafe: check.FetchUnsafe, Digest: check.FetchDigest}[k]
}

// Severity is the severity of a fetch finding of check id: a refusal, a
// breached limit and a digest mismatch are errors (something is wrong with
// what the repository points at); a download that failed is a warning,
// like a dependency not vendored.
func Severity(id string) string {
	if id == check.FetchFailed {
		return check.SeverityWarning
	}
	return check.SeverityError
}
