// Mounts Swagger UI on the /docs page (src/docs/page.ts renders the page). Everything it needs is
// served by this Worker: the document from /openapi.json, "try it" against this same origin, and
// no validator badge (Swagger UI's default would fetch one from another host).
window.ui = SwaggerUIBundle({
  url: "/openapi.json",
  dom_id: "#swagger-ui",
  deepLinking: true,
  validatorUrl: null,
  displayRequestDuration: true,
  defaultModelsExpandDepth: 0,
  presets: [SwaggerUIBundle.presets.apis],
  layout: "BaseLayout",
});
