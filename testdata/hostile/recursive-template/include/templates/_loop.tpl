{{- define "loop" -}}
{{ include "loop" . }}{{ include "loop" . }}
{{- end -}}
