"""The file `ragaudit app` hands to `streamlit run` (inspector.py), alone in its folder:
Streamlit puts a launcher's folder on sys.path, where no module may shadow another."""
