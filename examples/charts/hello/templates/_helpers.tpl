{{- define "hello.labels" }}
{{- range $key, $value := .Values.labels }}
    {{ $key }}: {{ printf "%q" $value }}
{{- end }}
{{- end }}
