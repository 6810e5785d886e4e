import '../app.js';
