// Tailwind v4 runs as a PostCSS plugin in Next's CSS pipeline; the theme is in globals.css.
export default {
  plugins: { "@tailwindcss/postcss": {} },
};
