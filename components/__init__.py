"""Reusable Streamlit render functions and cached engine factories."""
