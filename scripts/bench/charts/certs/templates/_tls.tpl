{{/* The TLS Secret: a CA and one certificate per service, generated at each include. */}}
{{- define "certs.tlsSecret" -}}
{{- $ca := genCA (printf "%s-ca" .Release.Name) 365 -}}
apiVersion: v1
kind: Secret
metadata:
  name: {{ .Release.Name }}-tls
type: Opaque
data:
  ca.crt: {{ $ca.Cert | b64enc }}
{{- range .Values.services }}
{{- $fqdn := printf "%s.%s.svc" . $.Release.Namespace }}
{{- $cert := genSignedCert . (list "127.0.0.1") (list . $fqdn) 365 $ca }}
  {{ . }}.crt: {{ $cert.Cert | b64enc }}
  {{ . }}.key: {{ $cert.Key | b64enc }}
{{- end }}
{{- end -}}
