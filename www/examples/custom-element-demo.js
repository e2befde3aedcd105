// The custom-element example's slider: sets the q attribute of both elements (they observe it).
const slider = document.getElementById('q');
const out = document.getElementById('q-out');
slider.addEventListener('input', () => {
  out.value = slider.value;
  for (const el of document.querySelectorAll('depthprod-plot')) el.setAttribute('q', slider.value);
});
