{{- define "bosun-operator.labels" -}}
app.kubernetes.io/name: bosun-operator
app.kubernetes.io/part-of: bosun-operator
{{- end }}
{{- define "bosun-operator.image" -}}
{{- if .Values.image -}}
{{ .Values.image }}
{{- else -}}
{{ trimSuffix "/" .Values.hub }}/operator:{{ .Values.tag | default .Chart.AppVersion }}
{{- end -}}
{{- end }}
